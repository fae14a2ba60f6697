import { type Aspect, type TemplateDefinition } from "./define";
export type TemplateInfo = {
    id: string;
    name: string;
    description: string;
    width: number;
    height: number;
    fps: number;
    duration: number;
    credits: number;
    premium: boolean;
    aspect: Aspect;
    languages: string[];
    /** The name and description by base language, English's not among them (it is name and description). */
    translations: Record<string, {
        name: string;
        description: string;
    }>;
};
export type PromptProblem = {
    field: string;
    message: string;
};
export type LoadedTemplate = {
    info: TemplateInfo;
    /** JSON Schema of user_prompt (from the template's TypeBox schema), for GET /v1/templates. */
    promptSchema: Record<string, unknown>;
    /** The same with the shared fields' descriptions in a language (by its base; English where there are none). */
    promptSchemaIn(language: string): Record<string, unknown>;
    /** Validates a user_prompt; problems use field paths like "headline" or "features.1". */
    validatePrompt(prompt: unknown): {
        ok: true;
    } | {
        ok: false;
        problems: PromptProblem[];
    };
    /** The module's definition, for the renderer. */
    definition: TemplateDefinition;
    /** The file it was loaded from ("builtin:<id>" for the built-in list). */
    source: string;
};
export type TemplateRegistry = {
    list(): LoadedTemplate[];
    get(id: string): LoadedTemplate | undefined;
};
/** A template's name and description in a language (by its base: `tr-TR` reads `tr`), English where it has none. */
export declare function templateWords(info: TemplateInfo, language: string): {
    name: string;
    description: string;
};
/**
 * A registry of the built-in templates (definitions imported statically, so `bun build --compile` bundles them)
 * followed by every template module of the folders; an id defined twice is refused, naming both sources.
 */
export declare function loadTemplates(opts?: {
    builtin?: readonly TemplateDefinition[];
    dirs?: readonly string[];
}): Promise<TemplateRegistry>;
