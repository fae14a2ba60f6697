export type Env = Record<string, string | undefined>;
export declare class ConfigError extends Error {
    constructor(message: string);
}
/** What a setting's parser may look at besides its own text: the environment and the settings read before it. */
export type SettingInput<C> = {
    env: Env;
    config: C;
};
export type Setting<V = unknown, C = unknown> = {
    /** The environment variable, VITRIN_… */
    env: string;
    /** The default as the configuration table shows it. */
    default: string;
    /** One or two sentences for the configuration table. */
    doc: string;
    /** The text parsed when the variable is unset, when it is not `default` itself (a default that follows other settings). */
    unset?: string | ((input: SettingInput<C>) => string);
    /** Turns the text into the value; throws an Error saying what the text must be. */
    parse(raw: string, input: SettingInput<C>): V;
    /**
     * Its value is never repeated in an error (a token, a key, a password). Settings whose names say so (TOKEN,
     * SECRET, KEY, PASSWORD or CREDENTIAL anywhere in them) are treated as secret without it.
     */
    secret?: boolean;
};
/**
 * A setting's text as an error may show it: a secret's only by its length; in any other, a URL's password (from the
 * user's colon to the last `@`, so a password holding `/` or `@` is hidden whole: postgres://u:***@h) and a
 * `password=` pair (libpq's key=value form, a query string) as `***`, since start-up errors go to logs that more
 * people read than the secrets are meant for.
 */
export declare function shownValue(setting: Pick<Setting, "env" | "secret">, text: string): string;
/** Reads one setting from `input.env`; a bad value is a ConfigError naming the variable and the value. */
export declare function readSetting<V, C>(setting: Setting<V, C>, input: SettingInput<C>): V;
/** One row of the configuration table (README / docs), in Markdown. */
export declare function settingRow(setting: Pick<Setting, "env" | "default" | "doc">): string;
export declare function integer(min: number, max: number): (raw: string) => number;
export declare function boolean(raw: string): boolean;
export declare function oneOf<T extends string>(...values: T[]): (raw: string) => T;
export declare function pluginName(raw: string): string;
/** An IPv4/IPv6 address, optionally with a /prefix length that fits its family. */
export declare function proxyEntry(entry: string): boolean;
export declare function pathList(raw: string): string[];
export declare function httpUrl(raw: string): string;
/** Optional text: empty or unset is null. */
export declare function optionalText(raw: string): string | null;
/** An optional http(s) URL: empty or unset is null. */
export declare function optionalUrl(raw: string): string | null;
