// The success bodies of the API as JSON Schemas (TypeBox), for /openapi.json: each mirrors a JSON function of the
// domain (src/*/json.ts and the few answers built in place), so generated clients get exact types.
import { Type } from "@sinclair/typebox";
import { t, type TSchema } from "elysia";
import { TOP_UP_STATUSES, type TransactionType } from "../billing";
import { JOB_STATUSES } from "../jobs";
import { DEKUPE_CROPS, DEKUPE_ERROR_CODES } from "../products";
import { ASPECTS } from "../templates";
import { VIDEO_ERROR_CODES } from "../videos";

const timestamp = t.String({ format: "date-time" });
const maybeTimestamp = t.Union([timestamp, t.Null()]);
const maybeString = t.Union([t.String(), t.Null()]);
const maybeNumber = t.Union([t.Number(), t.Null()]);
const metadata = t.Record(t.String(), t.String(), { description: "Your own key-value strings." });
// TypeBox's own integer: Elysia's t.Integer also takes numeric strings, which an answer never holds.
const integer = (description?: string) => Type.Integer(description ? { description } : {});
const pixels = (description: string) => t.Object({ x: integer(), y: integer(), width: integer(), height: integer() }, { description });
const maybe = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const box = maybe(pixels("The product's bounding box within the cut-out PNG, in its pixels."));
const sourceBox = maybe(pixels("Where the cut-out PNG sits in the original photo, in the photo's pixels."));
const timings = maybe(
  t.Record(t.String(), t.Union([t.Number(), t.String()]), {
    description:
      "Milliseconds per step of the last removal: total_ms, cutout_ms, load_ms, decode_ms, preprocess_ms, inference_ms, postprocess_ms…; " +
      "a hinted retry adds opencv_load_ms, hint_seed_ms, grabcut_ms, hint_matte_ms. The plugin may add words, such as its model variant.",
  }),
);
/** A closed set of strings, as a union of literals: generated clients get a type they can switch over exhaustively. */
const oneOf = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)));
const aspect = oneOf(ASPECTS);
const hintPoint = t.Object({ x: integer(), y: integer() });
const hint = maybe(
  t.Object(
    { point: t.Optional(hintPoint), box: t.Optional(pixels("The box the product lies in.")), exclude: t.Optional(t.Array(hintPoint)) },
    { description: "The retry's hint, as it was sent." },
  ),
);

// Schemas shown once under components.schemas by name, and referred to wherever an answer or event holds them, so a
// generated client has a type per object (Product, Video…) rather than one per operation.
const names = new Map<TSchema, string>();
function named<T extends TSchema>(name: string, schema: T): T {
  names.set(schema, name);
  return schema;
}

/** A reference to a named schema, or the schema itself when it has no name. */
export function ref(schema: TSchema): TSchema {
  const name = names.get(schema);
  return name ? t.Unsafe({ $ref: `#/components/schemas/${name}` }) : schema;
}

/** Every named schema, for the document's components. */
export function namedSchemas(): Record<string, TSchema> {
  return Object.fromEntries([...names].map(([schema, name]) => [name, schema]));
}

/** A cursor page: `data` and whether more follow. */
export function pageOf(item: TSchema, description: string) {
  return t.Object({ data: t.Array(ref(item)), has_more: t.Boolean() }, { description });
}

/** Why a cut-out attempt failed, beside its English message; null unless it failed. */
const dekupeErrorCode = t.Union([...DEKUPE_ERROR_CODES.map((code) => t.Literal(code)), t.Null()], {
  description:
    "image_missing (the photo is gone from storage), no_subject (nothing to cut out, or nothing under the hint: try a hint or another photo), " +
    "empty_matte (the mask came out empty), removal_failed (the plugin failed; see error), image_changing (the photo kept being replaced), " +
    "did_not_finish (the job timed out or its instance stopped); null unless failed.",
});

/** Why a video failed, for programs (the message is for people). */
const videoErrorCode = t.Union(VIDEO_ERROR_CODES.map((code) => t.Literal(code)), {
  description:
    "product_missing (the product was deleted), product_image_missing (its image is gone from storage), dekupe_timeout (its cut-out " +
    "was not ready in time), render_timeout (the render ran too long), render_failed (the render failed on every attempt). " +
    "Every failed video's credits are refunded.",
});

const dekupeFields = {
  enabled: t.Boolean(),
  status: t.Union([t.Literal("processing"), t.Literal("ready"), t.Literal("failed"), t.Literal("off")]),
  preview_url: maybeString,
  mask_url: maybeString,
  attempts: integer(),
  retries_left: integer(),
  box,
  source_box: sourceBox,
  crop: t.Union([t.Literal("subject"), t.Literal("none"), t.Null()]),
  warnings: t.Array(t.String(), { description: "subject_touches_edge, small_subject, soft_matte, frame_filling." }),
  timings,
  error: maybeString,
  error_code: dekupeErrorCode,
  updated_at: maybeTimestamp,
};

export const dekupeState = t.Object(dekupeFields, { description: "The background removal of a product." });

export const product = named("Product", t.Object(
  {
    id: t.String(),
    object: t.Literal("product"),
    name: t.String(),
    description: maybeString,
    image_url: t.String(),
    original_image_url: t.String(),
    dekupe: dekupeState,
    metadata,
    created_at: timestamp,
    updated_at: maybeTimestamp,
  },
  { description: "A product." },
));

export const deletedProduct = named("DeletedProduct", t.Object({ id: t.String(), object: t.Literal("product"), deleted: t.Literal(true) }));

/** GET /v1/products/:id/dekupe also shows both images; retry and revert show the state alone. */
export const dekupe = named("Dekupe", t.Object(
  {
    product_id: t.String(),
    object: t.Literal("dekupe"),
    ...dekupeFields,
    image_url: t.Optional(t.String()),
    original_image_url: t.Optional(t.String()),
  },
  { description: "A product's background removal." },
));

export const video = named("Video", t.Object(
  {
    id: t.String(),
    object: t.Literal("video"),
    status: t.Union([t.Literal("queued"), t.Literal("processing"), t.Literal("completed"), t.Literal("failed")]),
    template_id: t.String(),
    product_id: t.String(),
    language: t.String(),
    aspect_ratio: aspect,
    user_prompt: t.Record(t.String(), t.Unknown()),
    webhook_url: maybeString,
    progress: t.Number(),
    video_url: maybeString,
    thumbnail_url: maybeString,
    download_url: t.Union([t.String(), t.Null()], {
      description:
        "The video as a download named after its product, template, format and language (Content-Disposition: attachment), e.g. Stoneware-coffee-cup_Clean-card_9x16_en.mp4; null like video_url. A storage that cannot name downloads (public S3 links) gives video_url's link.",
    }),
    thumbnail_download_url: t.Union([t.String(), t.Null()], { description: "The thumbnail as a download named like download_url (.jpg); null like thumbnail_url." }),
    duration: maybeNumber,
    width: maybeNumber,
    height: maybeNumber,
    credits_used: t.Number(),
    credits_reserved: t.Number(),
    error: t.Union([t.Object({ code: videoErrorCode, message: maybeString }), t.Null()], { description: "Why the video failed; null unless it did." }),
    metadata,
    created_at: timestamp,
    started_at: maybeTimestamp,
    completed_at: maybeTimestamp,
    failed_at: maybeTimestamp,
    files_deleted_at: maybeTimestamp,
  },
  { description: "A video and its rendering state." },
));

export const estimate = named("VideoEstimate", t.Object(
  {
    object: t.Literal("video_estimate"),
    template_id: t.String(),
    language: t.String(),
    music: t.String({ description: "The track id the video would get (see GET /v1/music), or \"none\" for a silent one." }),
    aspect_ratio: aspect,
    credits: t.Number(),
    available: t.Number(),
    sufficient: t.Boolean(),
    duration: t.Number(),
    width: t.Number(),
    height: t.Number(),
  },
  { description: "What a video request would cost, checked without rendering." },
));

export const template = named("Template", t.Object(
  {
    id: t.String(),
    object: t.Literal("template"),
    name: t.String({ description: "In the language asked for with `?language=` when the template has words in it, else English." }),
    description: t.String({ description: "In the same language as name." }),
    width: t.Number(),
    height: t.Number(),
    aspect: aspect,
    fps: t.Number(),
    duration: t.Number(),
    credits: t.Number(),
    premium: t.Boolean(),
    languages: t.Array(t.String()),
    translations: t.Record(
      t.String(),
      t.Object({ name: t.String(), description: t.String() }),
      { description: "The template's name and description in every language it has words in, by base language (en, tr, de, ja, …); English is always there." },
    ),
    prompt_schema: t.Record(t.String(), t.Unknown(), { description: "JSON Schema of the template's user_prompt." }),
    preview_url: t.String({ description: "Its preview picture (GET /v1/templates/:id/preview), in the ?language= asked for when the template renders in it." }),
  },
  { description: "A video template." },
));

export const balance = named("Balance", t.Object({
  object: t.Literal("balance"),
  credits: t.Number(),
  is_premium: t.Boolean(),
  language: t.String(),
}));

export const transaction = named("Transaction", t.Object({
  id: t.String(),
  object: t.Literal("transaction"),
  amount: t.Number({ description: "Credits: positive in, negative out." }),
  type: oneOf(["purchase", "usage", "refund", "grant", "adjustment"] satisfies TransactionType[]),
  description: maybeString,
  platform: maybeString,
  balance_after: t.Number(),
  created_at: timestamp,
}));

export const topUp = named("TopUp", t.Object({
  id: t.String(),
  object: t.Literal("top_up"),
  amount: t.Number(),
  currency: t.String(),
  credits: t.Number(),
  status: oneOf(TOP_UP_STATUSES),
  platform: t.String(),
  payment_url: maybeString,
  failure_reason: maybeString,
  expires_at: maybeTimestamp,
  paid_at: maybeTimestamp,
  created_at: timestamp,
}));

export const topUpOptions = named("TopUpOptions", t.Object({
  object: t.Literal("top_up_options"),
  min_amount: t.Number({ description: "Least top-up amount, in minor units (1000 = 10.00)." }),
  max_amount: t.Number({ description: "Largest top-up amount, in minor units (VITRIN_TOP_UP_MAX)." }),
  currencies: t.Array(
    t.Object({
      currency: t.String({ description: "Lowercase currency code a top-up may use." }),
      credits_per_unit: t.Number({ description: "Credits one major unit buys: a top-up of `amount` minor units buys floor(amount × credits_per_unit / 100)." }),
    }),
    { description: "The currencies a top-up may use (VITRIN_CURRENCIES), with their rates (VITRIN_CREDIT_RATES)." },
  ),
}));

/** A manual top-up confirmed by the operator: `credited` is false when it had been paid already (booked once). */
export const completedTopUp = named("CompletedTopUp", t.Object({ ...topUp.properties, credited: t.Boolean({ description: "Whether this call booked the credits (false: booked before)." }) }));

const attempt = t.Object({
  id: t.String(),
  attempt: t.Number(),
  status_code: maybeNumber,
  latency_ms: maybeNumber,
  response: maybeString,
  error: maybeString,
  next_attempt_at: maybeTimestamp,
  created_at: timestamp,
});

export const webhookMessage = named("WebhookMessage", t.Object(
  {
    id: t.String(),
    object: t.Literal("webhook_message"),
    event: t.String(),
    url: t.String(),
    video_id: maybeString,
    endpoint_id: t.Union([t.String(), t.Null()], { description: "The webhook endpoint it was sent to, or null for the account's URL or a video's webhook_url." }),
    status: oneOf(["pending", "retrying", "delivered", "failed"]),
    attempts: t.Array(attempt),
    payload: t.Record(t.String(), t.Unknown(), { description: "The event as sent: {id, type, event, timestamp, created_at, data} (see the webhooks section)." }),
    created_at: timestamp,
    delivered_at: maybeTimestamp,
  },
  { description: "A webhook message and every delivery attempt." },
));

export const account = named("Account", t.Object({
  id: t.String(),
  object: t.Literal("account"),
  name: t.String(),
  credits: t.Number(),
  is_premium: t.Boolean(),
  language: t.String(),
  webhook_url: t.Union([t.String(), t.Null()], { description: "The account-level webhook URL, or null." }),
  created_at: timestamp,
}));

export const brand = named("Brand", t.Object({
  object: t.Literal("brand"),
  logo_url: maybeString,
  logo: t.Union([t.Object({ content_type: maybeString, width: maybeNumber, height: maybeNumber }), t.Null()]),
  colors: t.Object({ primary: maybeString, secondary: maybeString, background: maybeString, text: maybeString }),
  font: maybeString,
  updated_at: maybeTimestamp,
}));

export const webhookEndpoint = named("WebhookUrl", t.Object({ object: t.Literal("webhook_url"), url: maybeString }));
export const webhookSecret = named("WebhookSecret", t.Object({ object: t.Literal("webhook_secret"), secret: t.String({ description: "whsec_…" }) }));
export const rotatedSecret = named("RotatedSecret", t.Object({
  object: t.Literal("webhook_secret"),
  secret: t.String({ description: "The new whsec_ secret." }),
  previous_expires_at: timestamp,
}));

export const track = named("MusicTrack", t.Object({
  id: t.String(),
  title: t.String(),
  mood: t.String(),
  bpm: t.Number(),
  duration_seconds: t.Number(),
  license: t.String(),
}));

export const job = named("Job", t.Object({
  id: t.String(),
  object: t.Literal("job"),
  kind: t.String(),
  status: oneOf(JOB_STATUSES),
  payload: t.Record(t.String(), t.Unknown(), { description: "What the job was queued with (kind by kind)." }),
  attempts: t.Number(),
  max_attempts: t.Number(),
  priority: t.Number(),
  last_error: maybeString,
  run_at: maybeTimestamp,
  lease_owner: maybeString,
  lease_expires_at: maybeTimestamp,
  created_at: timestamp,
  started_at: maybeTimestamp,
  finished_at: maybeTimestamp,
}));

export const accountCreated = named("AccountCreated", t.Object({
  account,
  token: t.String({ description: "The API token, shown this once." }),
  token_id: t.String(),
}));
export const token = named("NewToken", t.Object({ id: t.String(), token: t.String({ description: "The API token, shown this once." }) }));
export const deletedToken = named("DeletedToken", t.Object({ id: t.String(), object: t.Literal("token"), deleted: t.Literal(true) }));

/** One background-removal attempt of a product's current photo (GET /v1/products/:id/dekupe/attempts). */
export const dekupeAttempt = named("DekupeAttempt", t.Object({
  id: t.String(),
  object: t.Literal("dekupe_attempt"),
  number: t.Number(),
  status: t.Union([t.Literal("ready"), t.Literal("failed")]),
  method: maybeString,
  crop: oneOf(DEKUPE_CROPS),
  warnings: t.Array(t.String()),
  box,
  source_box: sourceBox,
  hint,
  preview_url: maybeString,
  mask_url: maybeString,
  error: maybeString,
  error_code: dekupeErrorCode,
  in_use: t.Boolean(),
  accepted: t.Boolean(),
  created_at: timestamp,
}));
