// Schema helpers shared by route modules, where Elysia's `t` is looser than a JSON API should be.
import { t } from "elysia";

/**
 * A schema option naming what a parameter is to clients when the server checks it otherwise (/openapi.json shows
 * this instead): `limit` is checked as a string by the pagination code, since Elysia's number coercion names no
 * field in its errors, but clients send a number.
 */
export const DOCUMENTED_AS = "x-documented-as";

/**
 * A body schema option listing fields of which one must be sent (an image as `image_url` or as an uploaded `image`):
 * checked by the domain, shown in /openapi.json per body type (JSON bodies cannot carry a file).
 */
export const ONE_OF_FIELDS = "x-one-of-fields";

/** A JSON integer. Elysia's t.Integer also accepts numeric strings ("1000"); a JSON API should not. */
export function jsonInteger(options: { minimum?: number; maximum?: number; description?: string } = {}) {
  return t.Number({ ...options, multipleOf: 1 });
}

/**
 * The body of a route that takes none: nothing, or `{}`. A field sent anyway is a 422 naming it rather than being
 * ignored (a client sending `{"threshold":0.3}` to a retry learns the field does nothing).
 */
export const noBody = t.Optional(t.Object({}, { additionalProperties: false, description: "No fields: send no body, or {}." }));

/**
 * The query of a short list (templates, music, tokens, webhook endpoints, cut-out attempts), which comes whole: it takes
 * no parameters, and one sent anyway is a 422 naming it, as on the paged lists (`?limit=5` does not page it).
 */
export const noQuery = t.Object({}, { additionalProperties: false });

/**
 * `:id` in a path. No upper bound: an id longer than any we issue simply names nothing, so the route answers its own
 * 404 ("No such product"), as for any other unknown id, rather than a 422 about the id's length.
 */
export const idParams = t.Object({ id: t.String({ minLength: 1 }) });

/** Cursor pagination on every list: `limit`, `starting_after`, `ending_before`. */
export const pageQuery = t.Object(
  {
    // A string checked by the pagination code: Elysia's numeric query coercion reports errors without the field name.
    limit: t.Optional(
      t.String({ maxLength: 10, description: "Page size, 1–100 (default 20).", [DOCUMENTED_AS]: { type: "integer", minimum: 1, maximum: 100, default: 20 } }),
    ),
    starting_after: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Id to list after (older)." })),
    ending_before: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Id to list before (newer)." })),
  },
  { additionalProperties: false },
);

/**
 * `metadata` on products and videos. Values are checked by the domain (src/kernel/metadata.ts), not here: a schema
 * union would report a bad value as "metadata: Expected union value" instead of naming `metadata.<key>`.
 */
export const metadataBody = t.Union([
  t.Record(t.String(), t.Unknown(), {
    description:
      'Your own key-value strings: at most 50 keys, keys up to 40 characters, values strings up to 500. On update keys merge; "" or null removes a key.',
    // Checked as any values (the domain names a bad one), typed for clients as what is taken. The document writes the
    // union as this one schema (type object or null), so the null is said here too.
    [DOCUMENTED_AS]: { type: ["object", "null"], additionalProperties: { anyOf: [{ type: "string", maxLength: 500 }, { type: "null" }] } },
  }),
  t.Null({ description: "On update: removes every key." }),
], { error: 'must be an object of keys and string values ("" or null removes a key), or null to remove every key' });
