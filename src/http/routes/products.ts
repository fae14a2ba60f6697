// HTTP routes for /v1/products and their dekupe preview, retry and revert.
import { Elysia, t } from "elysia";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { accountGuard, type GuardDeps } from "../guard";
import { idParams, metadataBody, noBody, noQuery, ONE_OF_FIELDS, pageQuery } from "../schema";
import type { Products } from "../../products";
import type { Dekupe } from "../../products";

const name = t.String({ minLength: 1, maxLength: 200, pattern: "\\S", description: "Product name." });
const description = t.String({ maxLength: 5000, description: "Detailed description." });
/** The image as a file: product create and update also take multipart/form-data, as a browser form sends it. */
const imageFile = t.File({ description: "The image file (multipart/form-data only): JPG, PNG or WebP, at most 5 MB. Instead of image_url." });
const imageUrl = t.String({
  minLength: 1,
  maxLength: 8 * 1024 * 1024,
  description: "http(s) URL or data: URL of a JPG, PNG or WebP image, at most 5 MB.",
});

/** How a cut-out is cropped: tight around the subject, or kept at the photo's own size. */
const dekupeCrop = t.Union([t.Literal("subject"), t.Literal("none")], {
  description: '"subject" (default): cropped tight around the product; "none": a transparent PNG of the photo\'s own size.',
});

const pixel = (what: string) => t.Number({ description: `${what}, in the photo's pixels (upright, as original_image_url shows it).` });
const hintPoint = t.Object({ x: pixel("From the left edge"), y: pixel("From the top edge") }, { additionalProperties: false });
/** Which object a retry cuts out: a point on it or a box round it, and points that must stay outside. */
const dekupeHint = t.Object(
  {
    point: t.Optional(hintPoint),
    box: t.Optional(
      t.Object({ x: pixel("Left edge"), y: pixel("Top edge"), width: pixel("Width, positive"), height: pixel("Height, positive") }, { additionalProperties: false }),
    ),
    exclude: t.Optional(t.Array(hintPoint, { maxItems: 20, description: "Points that must stay outside the cut-out (at most 20)." })),
  },
  {
    additionalProperties: false,
    description: "Cut out the object under this point or inside this box, even if the model prefers another; all inside the photo (422 naming the field otherwise).",
  },
);

export function productRoutes(guard: GuardDeps, products: Products, dekupe: Dekupe) {
  return new Elysia({ prefix: "/v1", normalize: false })
    .use(accountGuard(guard))
    .get("/products", ({ principal, query }) => products.list(principal.accountId, query), {
      query: pageQuery,
      detail: operation({ tags: ["Products"], summary: "List products, newest first", ok: ok(200, pageOf(s.product, "Products, newest first"), "Products, newest first"), errors: [422] }),
    })
    .post(
      "/products",
      async ({ principal, body, set }) => {
        const product = await products.create(principal.accountId, body);
        set.status = 201;
        return product;
      },
      {
        body: t.Object(
          {
            name,
            description: t.Optional(description),
            image_url: t.Optional(imageUrl),
            image: t.Optional(imageFile),
            dekupe: t.Optional(t.Boolean({ default: true, description: "Remove the background (default true)." })),
            dekupe_crop: t.Optional(dekupeCrop),
            metadata: t.Optional(metadataBody),
          },
          { additionalProperties: false, [ONE_OF_FIELDS]: ["image_url", "image"] },
        ),
        // vitrin's own capped parser runs first (src/http/index.ts); these name the two body types in /openapi.json.
        parse: ["json", "formdata"],
        headers: idempotencyHeaders, detail: operation({ tags: ["Products"], summary: "Create a product (fetches and stores its image; 5 per account)", ok: ok(201, s.product, "The product (its cut-out is made in the background)"), errors: [400, 403, 409, 413, 415, 422, 507] }),
      },
    )
    .get("/products/:id", ({ principal, params }) => products.get(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags: ["Products"], summary: "Retrieve a product", ok: ok(200, s.product, "The product"), errors: [404] }),
    })
    .patch("/products/:id", ({ principal, params, body }) => products.update(principal.accountId, params.id, body), {
      params: idParams,
      body: t.Object(
        {
          name: t.Optional(name),
          description: t.Optional(t.Union([description, t.Null()])),
          image_url: t.Optional(imageUrl),
          image: t.Optional(imageFile),
          metadata: t.Optional(metadataBody),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
      parse: ["json", "formdata"],
      detail: operation({ tags: ["Products"], summary: "Update name, description, image or metadata (a new image is cleaned again)", ok: ok(200, s.product, "The product as changed"), errors: [400, 404, 413, 415, 422, 507] }),
    })
    .delete("/products/:id", ({ principal, params }) => products.delete(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags: ["Products"], summary: "Delete a product and its stored files", ok: ok(200, s.deletedProduct, "Deleted"), errors: [404] }),
    })
    .get("/products/:id/dekupe", ({ principal, params }) => dekupe.preview(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags: ["Products"], summary: "Background-removal preview and status", ok: ok(200, s.dekupe, "The background removal and both images"), errors: [404] }),
    })
    .post(
      "/products/:id/dekupe/retry",
      async ({ principal, params, body, set }) => {
        const out = await dekupe.retry(principal.accountId, params.id, body ?? undefined);
        set.status = 202;
        return out;
      },
      {
        params: idParams,
        body: t.Optional(t.Object({ crop: t.Optional(dekupeCrop), hint: t.Optional(dekupeHint) }, { additionalProperties: false })),
        parse: "json",
        headers: idempotencyHeaders, detail: operation({ tags: ["Products"], summary: "Try the background removal again (up to 3 retries)", ok: ok(202, s.dekupe, "Queued again"), errors: [400, 404, 409, 422] }),
      },
    )
    .get("/products/:id/dekupe/attempts", ({ principal, params }) => dekupe.attempts(principal.accountId, params.id), {
      params: idParams,
      query: noQuery,
      detail: operation({ tags: ["Products"], summary: "Every cut-out attempt of the product's current image, oldest first", ok: ok(200, pageOf(s.dekupeAttempt, "The attempts, oldest first"), "The attempts, oldest first"), errors: [404, 422] }),
    })
    .post("/products/:id/dekupe/accept", ({ principal, params, body }) => dekupe.accept(principal.accountId, params.id, body.attempt_id), {
      params: idParams,
      body: t.Object(
        { attempt_id: t.String({ minLength: 1, maxLength: 100, description: "The attempt to use (from GET …/dekupe/attempts)." }) },
        { additionalProperties: false },
      ),
      parse: "json",
      headers: idempotencyHeaders,
      detail: operation({ tags: ["Products"], summary: "Use one successful attempt's cut-out for the product's videos", ok: ok(200, s.product, "The product, showing the accepted cut-out"), errors: [400, 404, 409, 422] }),
    })
    .post("/products/:id/dekupe/revert", ({ principal, params }) => dekupe.revert(principal.accountId, params.id), {
      params: idParams,
      body: noBody,
      parse: "json",
      headers: idempotencyHeaders,
      detail: operation({ tags: ["Products"], summary: "Go back to the original image", ok: ok(200, s.product, "The product, back on its original image"), errors: [400, 404, 409, 422] }),
    });
}
