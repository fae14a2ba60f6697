// What an account asks of videos: an estimate, a new video (credits reserved and the render queued in one
// transaction), or one video (a page of them: list.ts).
import { and, eq } from "drizzle-orm";
import { errors, newId, type FieldProblem, mergeMetadata } from "../kernel";
import { ASPECT_SIZES } from "../templates";
import { loadVideo } from "./failure";
import { videoJson } from "./json";
import { productNames } from "./downloads";
import { templateLanguage } from "./language";
import { chooseMusic } from "./music";
import { checkLayout } from "./inputs";
import { aspectOf } from "./aspect";
import { RENDER_JOB, type NewVideo, type VideoDeps } from "./types";

/** Checks a request (its copy laid out too) and works out what it costs; throws the contract's errors. */
export async function prepare(deps: VideoDeps, accountId: string, input: NewVideo) {
  const { db, templates } = deps;
  const { accounts, products } = db.schema;
  const template = templates.get(input.template_id);
  if (!template) throw errors.notFound("template", `template_id ${JSON.stringify(input.template_id)} is none of the ids GET /v1/templates lists.`);
  const [product] = await db.read
    .select()
    .from(products)
    .where(and(eq(products.accountId, accountId), eq(products.id, input.product_id)))
    .limit(1);
  if (!product) throw errors.notFound("product");
  const [account] = await db.read.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account) throw errors.unauthorized();
  if (template.info.premium && !account.isPremium) {
    throw errors.forbidden(`The template ${template.info.id} needs a premium account.`);
  }
  const prompt = input.user_prompt ?? {};
  const checked = template.validatePrompt(prompt);
  if (!checked.ok) {
    const details: FieldProblem[] = checked.problems.map((p) => ({ field: p.field ? `user_prompt.${p.field}` : "user_prompt", message: p.message }));
    throw errors.validation(details);
  }
  const language = templateLanguage(template, input.language ?? account.language, { fromAccount: input.language === undefined });
  if (input.webhook_url !== undefined) await deps.checkUrl(input.webhook_url, "webhook_url");
  const music = chooseMusic(deps, template.info.id, input.music);
  const metadata = mergeMetadata({}, input.metadata);
  const aspect = aspectOf(input.aspect_ratio);
  // Last, as it costs the most: the copy laid out in the format, with the product and brand the render will use.
  await checkLayout(deps, { accountId, templateId: template.info.id, product, prompt, language, aspect });
  return { template, prompt, language, music, metadata, aspect, product, credits: template.info.credits, available: account.credits };
}

export async function createVideo(deps: VideoDeps, accountId: string, input: NewVideo) {
  const { db, clock } = deps;
  const { videos } = db.schema;
  const { template, prompt, language, music, credits, metadata, aspect, product } = await prepare(deps, accountId, input);
  const at = clock.now();
  const id = newId("vid");
  const row = await db.tx(async (tx) => {
    // Reserving the credits is part of creating the video: no video without payment, no payment without video.
    await deps.billing.bookEntry(tx, {
      accountId,
      amount: -credits,
      type: "usage",
      // What a person reads in the transactions: the product first, the ids for looking it up.
      description: `Video of ${product.name} (${template.info.name}, ${id})`,
      platform: "system",
      reference: `video:${id}:usage`,
      at,
    });
    const [inserted] = await tx
      .insert(videos)
      .values({
        id,
        accountId,
        productId: input.product_id,
        templateId: template.info.id,
        language,
        userPrompt: JSON.stringify(prompt),
        webhookUrl: input.webhook_url ?? null,
        music,
        aspectRatio: aspect,
        metadata: JSON.stringify(metadata),
        status: "queued",
        credits,
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    await deps.jobs.enqueue(tx, RENDER_JOB, { videoId: id }, { concurrencyKey: accountId });
    return inserted;
  });
  return videoJson(row, deps, product.name);
}

export async function estimateVideo(deps: VideoDeps, accountId: string, input: NewVideo) {
  const { template, credits, available, language, music, aspect } = await prepare(deps, accountId, input);
  const size = ASPECT_SIZES[aspect];
  return {
    object: "video_estimate",
    template_id: template.info.id,
    language,
    music,
    aspect_ratio: aspect,
    credits,
    available,
    sufficient: available >= credits,
    duration: template.info.duration,
    width: size.width,
    height: size.height,
  };
}

export async function getVideo(deps: VideoDeps, accountId: string, id: string) {
  const row = await loadVideo(deps, deps.db.read, id);
  if (!row || row.accountId !== accountId) throw errors.notFound("video");
  const names = await productNames(deps.db, accountId, [row]);
  return videoJson(row, deps, names.get(row.productId) ?? null);
}
