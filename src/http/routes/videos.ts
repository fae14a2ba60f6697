// HTTP routes for /v1/videos (create, estimate, preview, read, list) and /v1/templates (catalogue, prompt schemas, previews).
import { Elysia, t } from "elysia";
import { idempotencyHeaders, ok, operation, png } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { idParams, metadataBody, pageQuery } from "../schema";
import { accountGuard, type GuardDeps } from "../guard";
import { errors } from "../../kernel";
import type { RendererPlugin } from "../../plugins";
import type { TemplateRegistry, LoadedTemplate } from "../../templates";
import { ASPECTS, baseLanguage, PreviewCache, templateWords, type Aspect } from "../../templates";
import { normalizeLanguage } from "../../accounts";
import type { RateLimiter } from "../ratelimit";
import type { Videos } from "../../videos";
import { templateLanguage } from "../../videos";

/**
 * How previews are made and kept: by the renderer plugin (when it makes them), template previews cached in
 * VITRIN_PREVIEW_CACHE_BYTES, video previews limited per account by `limiter` (VITRIN_PREVIEWS_PER_MINUTE).
 */
export type PreviewOptions = { renderer: Pick<RendererPlugin, "name" | "preview">; cacheBytes?: number; limiter?: RateLimiter };



/** One of the four formats (a refusal lists them: kernel/validation-messages.ts words every union of literals so). */
const aspectRatio = (description: string) => t.Union(ASPECTS.map((a) => t.Literal(a)), { description });
const videoBody = t.Object(
  {
    template_id: t.String({ minLength: 1, maxLength: 100, description: "Id of the template to use (GET /v1/templates)." }),
    product_id: t.String({ minLength: 1, maxLength: 100, description: "Id of the product to feature." }),
    user_prompt: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Template-specific fields (see the template's prompt_schema)." })),
    language: t.Optional(t.String({ minLength: 2, maxLength: 35, description: "BCP 47 language; defaults to the account's." })),
    webhook_url: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "Receives video.completed / video.failed." })),
    music: t.Optional(t.String({ minLength: 1, maxLength: 100, description: '"auto" (default: the template\'s mood), a track id from GET /v1/music, or "none" (no audio stream).' })),
    aspect_ratio: t.Optional(aspectRatio('The format: "9:16" 1080×1920 (default), "4:5" 1080×1350, "1:1" 1080×1080 or "16:9" 1920×1080; every template composes each.')),
    metadata: t.Optional(metadataBody),
  },
  { additionalProperties: false },
);

/** The list's filters beside its cursor; values are checked by the videos folder, so a bad one is a 422 naming it. */
const videoListQuery = t.Composite(
  [
    pageQuery,
    t.Object({
      status: t.Optional(t.String({ maxLength: 20, description: "Only videos in this status: queued, processing, completed or failed." })),
      product_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Only videos of this product." })),
      "created[gte]": t.Optional(t.String({ maxLength: 40, description: "Only videos created at or after this time (ISO 8601, as created_at)." })),
      "created[lte]": t.Optional(t.String({ maxLength: 40, description: "Only videos created at or before this time (ISO 8601, as created_at)." })),
    }),
  ],
  { additionalProperties: false },
);

/** `?language=` of the template catalogue: which language its names, descriptions and shared field descriptions are given in. */
const templateQuery = t.Object(
  {
    language: t.Optional(
      t.String({
        minLength: 2,
        maxLength: 35,
        description: "BCP 47 language of `name` and `description` (default en), read by its base language; a template without words in it answers in English. `translations` holds every language's. The shared prompt fields' descriptions in `prompt_schema` follow it too.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The catalogue's language, checked: a malformed tag is a 422 naming it (a well-formed one the templates lack reads English). */
function catalogueLanguage(requested: string | undefined): string {
  if (requested === undefined) return "en";
  const tag = normalizeLanguage(requested);
  if (!tag) throw errors.invalidField("language", "must be a language code (BCP 47) such as en, tr or pt-BR");
  return tag;
}

/** `?language=` for a template's preview link: the catalogue's language by its base, when the template renders in it. */
function previewLanguage(languages: string[], language: string): string {
  const base = baseLanguage(language);
  return base !== "en" && languages.includes(base) ? `?language=${base}` : "";
}

/** A GET of the estimate's path reaches the route of one video: its 404 says which method the estimate takes. */
function estimateByGet(): never {
  throw errors.notFound("video", "An estimate is POST /v1/videos/estimate with the body of a video; GET /v1/videos/:id reads a video by its id (vid_…).");
}

export function templateJson(template: LoadedTemplate, publicUrl: string, language = "en") {
  const i = template.info;
  const words = templateWords(i, language);
  return {
    id: i.id,
    object: "template",
    name: words.name,
    description: words.description,
    width: i.width,
    height: i.height,
    aspect: i.aspect,
    fps: i.fps,
    duration: i.duration,
    credits: i.credits,
    premium: i.premium,
    languages: i.languages,
    // Every language the template has words in, English first: a client reads any of them from one answer.
    translations: { en: { name: i.name, description: i.description }, ...i.translations },
    // The shared fields described in the same language; a template's own fields as it wrote them.
    prompt_schema: template.promptSchemaIn(language),
    // The picture in the same language, when the template renders in it (its `languages`); else its English one.
    preview_url: `${publicUrl}/v1/templates/${i.id}/preview${previewLanguage(i.languages, language)}`,
  };
}

/**
 * A template's preview PNG from the renderer, cached per template and language in a byte-bounded LRU; the language is
 * checked against the template's first, so only supported ones make keys.
 */
function previewMaker(templates: TemplateRegistry, preview: PreviewOptions) {
  // One cache per service, bounded in bytes.
  const previews = new PreviewCache(preview.cacheBytes);
  return async (templateId: string, requested: string, aspect?: Aspect): Promise<Uint8Array> => {
    const template = templates.get(templateId);
    if (!template) throw errors.notFound("template");
    const language = baseLanguage(templateLanguage(template, requested));
    const make = preview.renderer.preview?.bind(preview.renderer);
    if (!make) throw errors.noPreviews(preview.renderer.name);
    // Without a format asked for, the template's own: one picture either way.
    const format = aspect ?? template.info.aspect;
    return previews.getOrMake(`${templateId}\u0000${language}\u0000${format}`, () => make({ templateId, language, aspect: format }));
  };
}

export function videoRoutes(guard: GuardDeps, videos: Videos, templates: TemplateRegistry, publicUrl: string, preview: PreviewOptions) {
  const previewOf = previewMaker(templates, preview);
  return new Elysia({ prefix: "/v1", normalize: false })
    .use(accountGuard(guard))
    .post(
      "/videos",
      async ({ principal, body, set }) => {
        const video = await videos.create(principal.accountId, body);
        set.status = 202;
        return video;
      },
      { body: videoBody, parse: "json", headers: idempotencyHeaders, detail: operation({ tags: ["Videos"], summary: "Start rendering a video (credits are reserved now, refunded on failure)", ok: ok(202, s.video, "The video, queued"), errors: [400, 402, 403, 404, 409, 422, 507] }) },
    )
    .post("/videos/estimate", ({ principal, body }) => videos.estimate(principal.accountId, body), {
      body: videoBody,
      parse: "json",
      headers: idempotencyHeaders, detail: operation({ tags: ["Videos"], summary: "Validate a video request and return its cost without rendering", ok: ok(200, s.estimate, "The cost and whether the balance covers it"), errors: [400, 403, 404, 422] }),
    })
    .post(
      "/videos/preview",
      async ({ principal, body }) => {
        // Counted before any work: a preview lays out and draws a frame, so failed ones cost too.
        const decision = preview.limiter?.enabled ? await preview.limiter.check(`preview:${principal.accountId}`) : null;
        if (decision && !decision.allowed) throw errors.tooManyRequests(decision.retryAfterSeconds);
        const png = await videos.preview(principal.accountId, body);
        return new Response(png, { headers: { "content-type": "image/png", "cache-control": "private, no-store" } });
      },
      {
        body: videoBody,
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({
          tags: ["Videos"],
          summary: "The poster frame of a video request (PNG, half size) with your product, copy, brand and format: free, nothing stored",
          responses: { 200: png("The frame as PNG") },
          errors: [400, 403, 404, 422],
        }),
      },
    )
    // async: Elysia awaits a handler by its text, and this one's no longer reads `=> call(`.
    .get("/videos/:id", async ({ principal, params }) => (params.id === "estimate" ? estimateByGet() : videos.get(principal.accountId, params.id)), {
      params: idParams,
      detail: operation({ tags: ["Videos"], summary: "Status, progress and details of one video", ok: ok(200, s.video, "The video"), errors: [404] }),
    })
    .delete("/videos/:id", ({ principal, params }) => videos.deleteFiles(principal.accountId, params.id), {
      params: idParams,
      detail: operation({
        tags: ["Videos"],
        summary: "Delete a finished video's files (video and thumbnail); the record stays with files_deleted_at set (409 while queued or processing)",
        ok: ok(200, s.video, "The video, files_deleted_at set"),
        errors: [404, 409],
      }),
    })
    .get("/videos", ({ principal, query }) => videos.list(principal.accountId, query), {
      query: videoListQuery,
      detail: operation({ tags: ["Videos"], summary: "Videos of the account, newest first; filter by status, product_id, created[gte] and created[lte]", ok: ok(200, pageOf(s.video, "Videos, newest first"), "Videos, newest first"), errors: [422] }),
    })
    .get("/templates", ({ query }) => {
      const language = catalogueLanguage(query.language);
      return { data: templates.list().map((tpl) => templateJson(tpl, publicUrl, language)), has_more: false };
    }, {
      query: templateQuery,
      detail: operation({ tags: ["Templates"], summary: "Templates with their size, duration, credit cost and prompt schema", ok: ok(200, pageOf(s.template, "Every template"), "Every template"), errors: [422] }),
    })
    .get(
      "/templates/:id",
      ({ params, query }) => {
        const language = catalogueLanguage(query.language);
        const tpl = templates.get(params.id);
        if (!tpl) throw errors.notFound("template");
        return templateJson(tpl, publicUrl, language);
      },
      { params: idParams, query: templateQuery, detail: operation({ tags: ["Templates"], summary: "One template", ok: ok(200, s.template, "The template"), errors: [404, 422] }) },
    )
    .get(
      "/templates/:id/preview",
      async ({ params, query }) => {
        // A malformed tag is refused as the catalogue refuses it; a well-formed one the template lacks is unsupported_language.
        const png = await previewOf(params.id, catalogueLanguage(query.language), query.aspect_ratio);
        return new Response(png, { headers: { "content-type": "image/png", "cache-control": "public, max-age=3600" } });
      },
      {
        params: idParams,
        query: t.Object({
          language: t.Optional(t.String({ minLength: 2, maxLength: 35, description: "BCP 47 language (default en); one of the template's languages." })),
          aspect_ratio: t.Optional(aspectRatio("The format to draw it in (default: the template's own `aspect`): 9:16, 4:5, 1:1 or 16:9.")),
        }),
        detail: operation({ tags: ["Templates"], summary: "A preview frame of the template (PNG)", responses: { 200: png("The frame as PNG") }, errors: [404, 422] }),
      },
    );
}
