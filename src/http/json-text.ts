// JSON answers written once per object: the read cache hands the same list object to every request until the next
// commit, and writing a five-product list anew each time cost more than all our hooks together (~1.5 µs a request).
// This holds because an answer's object is never changed after it is returned (a cached one is shared by every
// request that reads it, so changing it would already be a bug).

const written = new WeakMap<object, string>();

/** The JSON text of a plain object or array, written on its first answer and reused for the same object after. */
export function jsonText(value: object): string {
  let text = written.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    written.set(value, text);
  }
  return text;
}

/** Whether Elysia would answer `value` with Response.json: a plain object or an array. */
export function isJsonAnswer(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  const kind = value.constructor;
  return kind === Object || kind === Array || kind === undefined;
}

/** The content type Response.json gives, kept so the answers read the same as before. */
export const JSON_CONTENT_TYPE = "application/json;charset=utf-8";
