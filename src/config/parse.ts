// The shape of one setting (variable, default, description, parser) and the parsers settings share; the core's list
// and every plugin's declared settings are read through readSetting, so a bad value is refused the same way everywhere.
import { isIP } from "node:net";
import { resolve } from "node:path";

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** What a setting's parser may look at besides its own text: the environment and the settings read before it. */
export type SettingInput<C> = { env: Env; config: C };

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

/** Names that say a setting holds a secret. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL/;

/**
 * A setting's text as an error may show it: a secret's only by its length; in any other, a URL's password (from the
 * user's colon to the last `@`, so a password holding `/` or `@` is hidden whole: postgres://u:***@h) and a
 * `password=` pair (libpq's key=value form, a query string) as `***`, since start-up errors go to logs that more
 * people read than the secrets are meant for.
 */
export function shownValue(setting: Pick<Setting, "env" | "secret">, text: string): string {
  if (setting.secret || SECRET_NAME.test(setting.env)) return `(${text.length} characters, not shown)`;
  const masked = text
    .replace(/(:\/{0,2}[^:@\s/]*:)\S*@(?=[^@]*$)/, "$1***@")
    .replace(/(password\s*=\s*)[^&\s]+/gi, "$1***");
  return JSON.stringify(masked);
}

/** Reads one setting from `input.env`; a bad value is a ConfigError naming the variable and the value. */
export function readSetting<V, C>(setting: Setting<V, C>, input: SettingInput<C>): V {
  const given = input.env[setting.env];
  const raw = given ?? (typeof setting.unset === "function" ? setting.unset(input) : (setting.unset ?? setting.default));
  try {
    return setting.parse(raw, input);
  } catch (e) {
    throw new ConfigError(`${setting.env}=${shownValue(setting, given ?? raw)}: ${(e as Error).message}`);
  }
}

/** One row of the configuration table (README / docs), in Markdown. */
export function settingRow(setting: Pick<Setting, "env" | "default" | "doc">): string {
  return `| \`${setting.env}\` | \`${setting.default}\` | ${setting.doc} |`;
}

export function integer(min: number, max: number) {
  return (raw: string) => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`must be a whole number between ${min} and ${max}`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`must be between ${min} and ${max}`);
    return n;
  };
}

export function boolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new Error("must be true or false");
}

export function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    const v = raw.trim() as T;
    if (!values.includes(v)) throw new Error(`must be one of ${values.join(", ")}`);
    return v;
  };
}

export function pluginName(raw: string): string {
  const v = raw.trim();
  if (!/^[a-z0-9][a-z0-9-]*$/.test(v)) throw new Error("must be a plugin name (lowercase letters, digits and dashes)");
  return v;
}

/** An IPv4/IPv6 address, optionally with a /prefix length that fits its family. */
export function proxyEntry(entry: string): boolean {
  const [address, bits, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

export function pathList(raw: string): string[] {
  return raw.split(":").map((p) => p.trim()).filter(Boolean).map((p) => resolve(p));
}

export function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error("must be an absolute http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("must be an absolute http(s) URL");
  return u.toString().replace(/\/+$/, "");
}

/** Optional text: empty or unset is null. */
export function optionalText(raw: string): string | null {
  return raw.trim() || null;
}

/** An optional http(s) URL: empty or unset is null. */
export function optionalUrl(raw: string): string | null {
  return raw.trim() ? httpUrl(raw) : null;
}
