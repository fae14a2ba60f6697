// HTTP routes for /v1/brand: an account's brand kit (logo, colours, font), read and replaced with the account token.
import { Elysia, t } from "elysia";
import { ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import type { Brand } from "../../brand";
import { SHIPPED_FONTS } from "../../templates/api";
import { accountGuard, type GuardDeps } from "../guard";

// The #rrggbb form is checked by the brand folder: a pattern inside a union would only say "Expected union value".
const color = t.Union([t.String({ maxLength: 20, description: "#rrggbb" }), t.Null()]);

const body = t.Object(
  {
    logo: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 8 * 1024 * 1024 }), t.Null()], {
        description: "http(s) URL or data: URL of a JPG, PNG or WebP image, at most 5 MB (PNG and WebP keep their alpha); null removes it.",
        error: "must be an image URL or data: URL, or null to remove the logo",
      }),
    ),
    colors: t.Optional(
      t.Union(
        [
          t.Object({ primary: t.Optional(color), secondary: t.Optional(color), background: t.Optional(color), text: t.Optional(color) }, { additionalProperties: false }),
          t.Null(),
        ],
        {
          description: "Brand colours as #rrggbb; given, it replaces all four (one left out, or null, is cleared); null clears all four.",
          error: "must be an object of colours (primary, secondary, background, text: each #rrggbb or null), or null to clear them",
        },
      ),
    ),
    font: t.Optional(
      t.Union([t.String({ maxLength: 100 }), t.Null()], {
        description: `One of the shipped fonts (${SHIPPED_FONTS.join(", ")}); null clears it.`,
        error: "must be a font name or null",
      }),
    ),
  },
  { additionalProperties: false },
);

export function brandRoutes(guard: GuardDeps, brand: Brand) {
  return new Elysia({ prefix: "/v1", normalize: false })
    .use(accountGuard(guard))
    .get("/brand", ({ principal }) => brand.get(principal.accountId), {
      detail: operation({ tags: ["Brand"], summary: "The account's brand kit (every field null until set)", ok: ok(200, s.brand, "The brand kit") }),
    })
    .put("/brand", ({ principal, body }) => brand.put(principal.accountId, body), {
      body,
      parse: "json",
      detail: operation({
        tags: ["Brand"],
        summary: "Set the brand kit: a field given replaces its value, null clears it, a field left out keeps its value",
        ok: ok(200, s.brand, "The brand kit as set"),
        errors: [400, 413, 415, 422, 507],
      }),
    });
}
