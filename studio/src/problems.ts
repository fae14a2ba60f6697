// Catalogue errors as the Studio shows them: its own words for the code in the interface language (the server's message
// for a code it does not know), and a 422's per-field problems matched to inputs.
// Straight from the module, not the i18n face: that one brings in Preact, and tests read this file outside a browser.
import { fieldText, problemText } from "./i18n/errors";
import type { Lang } from "./i18n/format";

/** A catalogue error body: `{ error, code, message, details?: [{field, message}], ...extra }`. */
export type ApiProblem = {
  error: string;
  code: string;
  message: string;
  details?: { field: string; message: string }[];
  [extra: string]: unknown;
};

/** The interface language the page shows (the app keeps `<html lang>` in step with its switch); English outside a page. */
function pageLang(): Lang {
  // Through globalThis: the server's typecheck (which reads this file for its tests) knows no DOM.
  const page = (globalThis as { document?: { documentElement: { lang: string } } }).document;
  return page?.documentElement.lang === "tr" ? "tr" : "en";
}

/**
 * Reads a catalogue error from anything openapi-fetch or fetch gave back, its message and field messages in `lang`
 * (the server's words stay in `server_message`); null when it is not one.
 */
export function asProblem(value: unknown, lang: Lang = pageLang()): ApiProblem | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.message !== "string") return null;
  const body = { ...v, code: typeof v.code === "string" ? v.code : "unknown", message: v.message };
  const details = Array.isArray(v.details) ? v.details.map((d) => translatedDetail(d, lang)) : undefined;
  return {
    ...body,
    error: typeof v.error === "string" ? v.error : "Error",
    message: problemText(body, lang),
    server_message: typeof v.server_message === "string" ? v.server_message : v.message,
    ...(details ? { details } : {}),
  } as ApiProblem;
}

function translatedDetail(d: unknown, lang: Lang): unknown {
  if (!d || typeof d !== "object") return d;
  const detail = d as { message?: unknown };
  return typeof detail.message === "string" ? { ...detail, message: fieldText(detail.message, lang) } : d;
}

/**
 * Per-field messages of a 422: `{ "user_prompt.headline": "must be at most 40 characters" }`. Field paths are kept
 * as the API names them; a form maps its inputs to them (see fieldError).
 */
export function fieldErrors(problem: ApiProblem | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of problem?.details ?? []) {
    if (d && typeof d.field === "string" && typeof d.message === "string" && !(d.field in out)) out[d.field] = d.message;
  }
  return out;
}

/** The message for one input: its exact path, or a path the API wrote with a slash or a bracket (`user_prompt/headline`). */
export function fieldError(errors: Record<string, string>, field: string): string | undefined {
  if (errors[field]) return errors[field];
  const wanted = normalizeField(field);
  for (const [name, message] of Object.entries(errors)) if (normalizeField(name) === wanted) return message;
  // A list's item (`features.2`) belongs to the list's one input.
  for (const [name, message] of Object.entries(errors)) if (normalizeField(name).startsWith(`${wanted}.`)) return message;
  return undefined;
}

function normalizeField(field: string): string {
  return field
    .replace(/^\/+|^body\.?/, "")
    .replace(/\[(\w+)\]/g, ".$1")
    .replace(/\//g, ".");
}

/** Field problems no input of the form shows (so the form can list them in its alert instead of losing them). */
export function unplacedErrors(errors: Record<string, string>, shown: string[]): string[] {
  const placed = shown.map(normalizeField);
  const isPlaced = (name: string) => placed.some((p) => name === p || name.startsWith(`${p}.`));
  return Object.entries(errors)
    .filter(([name]) => !isPlaced(normalizeField(name)))
    .map(([name, message]) => (name ? `${name}: ${message}` : message));
}
