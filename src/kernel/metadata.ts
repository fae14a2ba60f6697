// Metadata on products and videos as Stripe has it: a client's own key-value strings, checked against Stripe's
// limits, set on create and merged on update (a key set to "" or null is removed, `metadata: null` clears all).
import { errors, type FieldProblem } from "./errors";

export type Metadata = Record<string, string>;
/** What a request may send: string values, "" or null to remove a key; null for the whole object clears it. */
export type MetadataInput = Record<string, unknown> | null;

export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

function keyProblem(key: string): string | null {
  if (key.length === 0) return "keys cannot be empty";
  if (key.length > METADATA_MAX_KEY_LENGTH) return `keys can be at most ${METADATA_MAX_KEY_LENGTH} characters long`;
  // Form posts name keys as metadata[key], so brackets inside a key could never be sent that way.
  if (/[[\]]/.test(key)) return "keys cannot contain square brackets";
  return null;
}

function valueProblem(value: unknown): string | null {
  if (value === null || value === "") return null;
  if (typeof value !== "string") return "must be a string (\"\" or null removes the key)";
  if (value.length > METADATA_MAX_VALUE_LENGTH) return `can be at most ${METADATA_MAX_VALUE_LENGTH} characters long`;
  return null;
}

/**
 * `input` applied to `current` (an empty object for a new record): each key checked, "" and null removing their
 * key, null for the whole object removing every key. Every breach is a 422 naming `metadata.<key>`.
 */
export function mergeMetadata(current: Metadata, input: MetadataInput | undefined): Metadata {
  if (input === undefined) return current;
  if (input === null) return Object.create(null) as Metadata;
  if (typeof input !== "object" || Array.isArray(input)) {
    throw errors.invalidField("metadata", "must be an object of string values, or null to remove every key");
  }
  const problems: FieldProblem[] = [];
  // No prototype: a key named "__proto__" (or "constructor") is an ordinary key here, not a setter that drops it.
  const next: Metadata = Object.assign(Object.create(null) as Metadata, current);
  for (const [key, value] of Object.entries(input)) {
    const problem = keyProblem(key) ?? valueProblem(value);
    if (problem) problems.push({ field: `metadata.${key}`, message: problem });
    else if (value === null || value === "") delete next[key];
    else next[key] = value as string;
  }
  if (problems.length > 0) throw errors.validation(problems);
  const keys = Object.keys(next);
  if (keys.length > METADATA_MAX_KEYS) {
    // Named by the first key past the limit (kept keys come first, so it is one this request adds).
    const message = `is one key too many: metadata can have at most ${METADATA_MAX_KEYS} keys (this would make ${keys.length})`;
    throw errors.invalidField(`metadata.${keys[METADATA_MAX_KEYS]}`, message);
  }
  return next;
}

/** A stored metadata column as the JSON object the API shows. */
export function parseMetadata(text: string | null | undefined): Metadata {
  if (!text) return {};
  return JSON.parse(text) as Metadata;
}
