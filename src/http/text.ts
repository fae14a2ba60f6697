// Text the API accepts is free of U+0000: PostgreSQL can neither store nor compare it (a lookup or insert with it
// fails instead of finding nothing), so a NUL anywhere in a path, query or JSON body is refused up front, on both
// databases alike, with a 422 naming where it was.
import { errors } from "../kernel";

/** Where the first string (or object key) containing U+0000 is in `value`, as a dotted field path; null if none. */
export function nulField(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object") return null;
  for (const [key, child] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (key.includes("\u0000")) return here;
    const found = nulField(child, here);
    if (found !== null) return found;
  }
  return null;
}

/** Throws the 422 when any of the request's parts holds a NUL character. */
export function refuseNul(parts: { params?: unknown; query?: unknown; body?: unknown }): void {
  for (const part of [parts.params, parts.query, parts.body]) {
    const field = nulField(part);
    if (field !== null) throw errors.invalidField(field, "must not contain the NUL character (U+0000)");
  }
}
