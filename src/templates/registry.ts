// The template registry: checks template definitions, works out their languages and prompt schema, and loads the
// built-in list (templates/index.ts, handed in by the composition root) and the template folders of the settings.
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describeImportError, plainMessage } from "../kernel";
import { templateApi, type TemplateApi } from "./api";
import { ASPECT_SIZES, fpsOf, isTemplateDefinition, type Aspect, type TemplateDefinition } from "./define";
import { FIELD_LANGUAGES, promptSchemaIn } from "./field-words";
import { baseLanguage, BUILTIN_STRINGS, LANGUAGES } from "./i18n";

export type TemplateInfo = {
  id: string;
  name: string;
  description: string;
  width: number;
  height: number;
  fps: number;
  duration: number /* seconds */;
  credits: number;
  premium: boolean;
  aspect: Aspect;
  languages: string[];
  /** The name and description by base language, English's not among them (it is name and description). */
  translations: Record<string, { name: string; description: string }>;
};

export type PromptProblem = { field: string; message: string };

export type LoadedTemplate = {
  info: TemplateInfo;
  /** JSON Schema of user_prompt (from the template's TypeBox schema), for GET /v1/templates. */
  promptSchema: Record<string, unknown>;
  /** The same with the shared fields' descriptions in a language (by its base; English where there are none). */
  promptSchemaIn(language: string): Record<string, unknown>;
  /** Validates a user_prompt; problems use field paths like "headline" or "features.1". */
  validatePrompt(prompt: unknown): { ok: true } | { ok: false; problems: PromptProblem[] };
  /** The module's definition, for the renderer. */
  definition: TemplateDefinition;
  /** The file it was loaded from ("builtin:<id>" for the built-in list). */
  source: string;
};

export type TemplateRegistry = { list(): LoadedTemplate[]; get(id: string): LoadedTemplate | undefined };

const ID = /^[a-z0-9][a-z0-9-]{0,47}$/;

/** A value as a template author wrote it, for a refusal's "not …". */
const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value));

function check(def: TemplateDefinition, source: string): void {
  const m = def.meta;
  const bad = (what: string): never => {
    throw new Error(`template ${source}: ${what}`);
  };
  if (!m || typeof m !== "object") bad("meta is missing");
  if (typeof m.id !== "string" || !ID.test(m.id)) bad(`meta.id must be lowercase letters, digits and dashes, not ${JSON.stringify(m.id)}`);
  if (typeof m.name !== "string" || !m.name.trim()) bad("meta.name is missing");
  if (typeof m.description !== "string") bad("meta.description is missing");
  if (!(m.aspect in ASPECT_SIZES)) bad(`meta.aspect must be one of ${Object.keys(ASPECT_SIZES).join(", ")}`);
  if (!(typeof m.duration === "number" && m.duration >= 1 && m.duration <= 60)) bad(`meta.duration must be 1 to 60 seconds, not ${shown(m.duration)}`);
  if (!(Number.isInteger(m.credits) && m.credits >= 1)) bad(`meta.credits must be a whole number of at least 1, not ${shown(m.credits)}`);
  if (m.fps !== undefined && !(Number.isInteger(m.fps) && m.fps >= 10 && m.fps <= 60)) bad(`meta.fps must be a whole number from 10 to 60, not ${shown(m.fps)}`);
  if (m.posterAt !== undefined && !(m.posterAt >= 0 && m.posterAt < m.duration)) bad(`meta.posterAt must fall inside the video (at least 0 and under its duration, ${m.duration} s), not ${shown(m.posterAt)}`);
  if (!def.prompt || (def.prompt as { type?: string }).type !== "object") bad("prompt must be a TypeBox object (t.Object)");
  // A video may be asked without user_prompt (it defaults to {}), so a field it cannot do without would refuse those.
  const required = (def.prompt as { required?: unknown }).required;
  if (Array.isArray(required) && required.length > 0) {
    bad(`prompt field${required.length > 1 ? "s" : ""} ${required.map((f) => JSON.stringify(f)).join(", ")} must be optional (t.Optional, with a default drawn from the product): a video may be asked with no user_prompt`);
  }
  if (typeof def.build !== "function") bad("build is missing");
  if (def.strings && !def.strings.en) bad("strings must include English (en), the fallback language");
  checkTranslations(m.translations, bad);
}

/** A base language tag as translations are keyed: two or three lowercase letters (`tr`, `de`, `fil`). */
const BASE_LANGUAGE = /^[a-z]{2,3}$/;
/** Tags that name no language a reader has: undetermined, several, no linguistic content. */
const NO_LANGUAGE = new Set(["und", "mul", "zxx", "mis"]);

/** Whether a key is a base language as requests arrive after canonicalising (`he`, not its old `iw`). */
function canonicalBase(lang: string): boolean {
  try {
    return BASE_LANGUAGE.test(lang) && !NO_LANGUAGE.has(lang) && Intl.getCanonicalLocales(lang)[0] === lang;
  } catch {
    return false;
  }
}

function checkTranslations(translations: unknown, bad: (what: string) => never): void {
  if (translations === undefined) return;
  if (!translations || typeof translations !== "object" || Array.isArray(translations)) bad("meta.translations must be an object of languages");
  for (const [lang, words] of Object.entries(translations as Record<string, unknown>)) {
    const at = `meta.translations.${lang}`;
    // Left out, as a conditional spread may leave it: no words in that language.
    if (words === undefined) continue;
    if (!canonicalBase(lang)) bad(`${at}: a translation is keyed by a base language, lowercase and in its current code (tr, de, ja, he), not ${JSON.stringify(lang)}`);
    if (lang === "en") bad(`${at}: English is meta.name and meta.description themselves`);
    const w = words as Partial<Record<string, unknown>> | null;
    if (!w || typeof w !== "object") bad(`${at} must be { name, description? }`);
    if (typeof w!.name !== "string" || !w!.name.trim()) bad(`${at}.name is missing`);
    if (w!.description !== undefined && typeof w!.description !== "string") bad(`${at}.description must be text`);
  }
}

function translationsOf(meta: TemplateDefinition["meta"]): TemplateInfo["translations"] {
  const out: TemplateInfo["translations"] = {};
  for (const [lang, words] of Object.entries(meta.translations ?? {})) {
    if (words) out[lang] = { name: words.name.trim(), description: words.description?.trim() || meta.description };
  }
  return out;
}

/** A template's name and description in a language (by its base: `tr-TR` reads `tr`), English where it has none. */
export function templateWords(info: TemplateInfo, language: string): { name: string; description: string } {
  return info.translations[baseLanguage(language)] ?? { name: info.name, description: info.description };
}

/** The prompt schema's copies by language, made on first asking: one each of the few languages with field words. */
function localizedSchemas(promptSchema: Record<string, unknown>): (language: string) => Record<string, unknown> {
  const made = new Map<string, Record<string, unknown>>();
  return (language) => {
    const base = baseLanguage(language);
    if (base === "en" || !(FIELD_LANGUAGES as string[]).includes(base)) return promptSchema;
    let schema = made.get(base);
    if (!schema) made.set(base, (schema = promptSchemaIn(promptSchema, base)));
    return schema;
  };
}

function languagesOf(def: TemplateDefinition): string[] {
  const own = def.strings;
  const keys = Object.keys(own?.en ?? {});
  const extra = Object.keys(own ?? {}).filter((l) => !(LANGUAGES as readonly string[]).includes(l) && l in BUILTIN_STRINGS);
  return [...LANGUAGES, ...extra].filter((l) => keys.every((k) => own?.[l]?.[k] !== undefined));
}

function jsonSchema(schema: TObject): Record<string, unknown> {
  // Symbol keys (TypeBox's kinds) vanish in JSON; `error` is our own wording for messages, not part of the contract.
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === "error" ? undefined : v)));
}

/**
 * The shared price fields read together (a template with both `price` and `old_price`): an old price is the price
 * before a discount, so it needs the price beside it and, both numbers, must be the higher one; else the video would
 * strike through a price lower than the "new" one and show a sale badge over it (a misleading price in most markets).
 */
function discountProblems(schema: TObject, prompt: Record<string, unknown>): PromptProblem[] {
  if (!schema.properties.price || !schema.properties.old_price || prompt.old_price === undefined) return [];
  const { price, old_price: old } = prompt;
  if (price === undefined) return [{ field: "old_price", message: "needs price beside it: the old price is shown struck through next to the price after the discount" }];
  if (typeof price === "number" && typeof old === "number" && old <= price) {
    return [{ field: "old_price", message: `must be more than price (${price}): it is the price before the discount` }];
  }
  return [];
}

function validator(schema: TObject) {
  return (prompt: unknown): { ok: true } | { ok: false; problems: PromptProblem[] } => {
    if (prompt === null || typeof prompt !== "object" || Array.isArray(prompt)) {
      return { ok: false, problems: [{ field: "", message: "must be an object" }] };
    }
    const problems: PromptProblem[] = [];
    const seen = new Set<string>();
    for (const e of Value.Errors(schema, prompt)) {
      const field = e.path.replace(/^\//, "").replaceAll("/", ".");
      if (seen.has(field)) continue;
      seen.add(field);
      // A field's own words first, else the same plain words as the request bodies' (kernel/validation-messages.ts).
      const custom = (e.schema as { error?: unknown }).error;
      problems.push({ field, message: typeof custom === "string" ? custom : plainMessage(e.message, e.schema, field) });
    }
    if (problems.length === 0) problems.push(...discountProblems(schema, prompt as Record<string, unknown>));
    return problems.length === 0 ? { ok: true } : { ok: false, problems };
  };
}

function load(def: TemplateDefinition, source: string): LoadedTemplate {
  check(def, source);
  // Unknown prompt fields are refused unless a template says otherwise.
  const schema = def.prompt as TObject & { additionalProperties?: unknown };
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  const size = ASPECT_SIZES[def.meta.aspect as Aspect];
  const promptSchema = jsonSchema(schema);
  return {
    info: {
      id: def.meta.id,
      name: def.meta.name,
      description: def.meta.description,
      width: size.width,
      height: size.height,
      fps: fpsOf(def),
      duration: def.meta.duration,
      credits: def.meta.credits,
      premium: def.meta.premium === true,
      aspect: def.meta.aspect,
      languages: languagesOf(def),
      translations: translationsOf(def.meta),
    },
    promptSchema,
    promptSchemaIn: localizedSchemas(promptSchema),
    validatePrompt: validator(schema),
    definition: def,
    source,
  };
}

async function definitionOf(mod: { default?: unknown }, source: string): Promise<TemplateDefinition> {
  let def = mod.default;
  try {
    if (typeof def === "function") def = await (def as (api: TemplateApi) => unknown)(templateApi);
  } catch (e) {
    // The factory form runs the template's top level here, not at import: its mistakes are named the same way.
    throw new Error(`template ${source} failed to load: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!isTemplateDefinition(def)) {
    throw new Error(`template ${source}: the module must default-export defineTemplate({ meta, prompt, build }), or, in a template folder, a function (api) => api.defineTemplate({ meta, prompt, build })`);
  }
  return def;
}

/** A folder template that imports vitrin's source (as the built-in ones do) is told the form a folder needs. */
const FOLDER_FORM_HINT = (e: unknown) =>
  /Cannot find (module|package) .*templates\/api/.test(String((e as Error)?.message ?? e))
    ? " (a template in a folder imports nothing at run time: default-export (api) => api.defineTemplate({ … }), with types from @vitrin/plugin-kit/templates)"
    : "";

const TEMPLATE_FILE = /^[^._][^/]*\.(ts|js|mjs)$/;

/** Every template module of a folder, imported at run time, in name order. */
async function loadFolder(dir: string): Promise<LoadedTemplate[]> {
  const abs = resolve(dir);
  let names: string[];
  try {
    names = await readdir(abs);
  } catch (e) {
    throw new Error(`cannot read the templates folder ${abs}: ${(e as Error).message}`);
  }
  const loaded: LoadedTemplate[] = [];
  for (const name of names.sort()) {
    if (!TEMPLATE_FILE.test(name) || name.endsWith(".d.ts") || /\.(test|spec)\./.test(name)) continue;
    const file = join(abs, name);
    let mod: { default?: unknown };
    try {
      mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (e) {
      throw new Error(`template ${file} failed to load: ${describeImportError(e)}${FOLDER_FORM_HINT(e)}`);
    }
    loaded.push(load(await definitionOf(mod, file), file));
  }
  return loaded;
}

/**
 * A registry of the built-in templates (definitions imported statically, so `bun build --compile` bundles them)
 * followed by every template module of the folders; an id defined twice is refused, naming both sources.
 */
export async function loadTemplates(opts: { builtin?: readonly TemplateDefinition[]; dirs?: readonly string[] } = {}): Promise<TemplateRegistry> {
  const byId = new Map<string, LoadedTemplate>();
  const add = (tpl: LoadedTemplate) => {
    const prev = byId.get(tpl.info.id);
    if (prev) throw new Error(`template id "${tpl.info.id}" is defined twice: ${prev.source} and ${tpl.source}`);
    byId.set(tpl.info.id, tpl);
  };
  for (const def of opts.builtin ?? []) add(load(def, `builtin:${def.meta.id}`));
  for (const dir of opts.dirs ?? []) for (const tpl of await loadFolder(dir)) add(tpl);
  const list = [...byId.values()];
  return { list: () => [...list], get: (id) => byId.get(id) };
}
