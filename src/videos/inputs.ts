// What a renderer is given for one video, made the same way for a render, a layout check and a preview: the product's
// image (its cut-out once ready) staged in a scratch folder, the prompt under the account's brand colours, its logo
// and font; and the layout check that refuses copy that cannot be laid out before anything is charged.
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { withBrandColors } from "../brand";
import type { schema } from "../db";
import { errors } from "../kernel";
import type { RenderProduct } from "../plugins";
import type { Aspect } from "../templates";
import { RenderFailure } from "./failure";
import type { VideoDeps } from "./types";
import { verdictKey } from "./verdicts";

export type ProductRow = typeof schema.products.$inferSelect;

/** A scratch folder under the data dir; the caller removes it. */
export async function makeWorkDir(deps: VideoDeps, label: string): Promise<string> {
  const scratch = join(deps.config.dataDir, "tmp");
  await Bun.write(join(scratch, ".keep"), "");
  return mkdtemp(join(scratch, `${label}-`));
}

/**
 * Removes scratch folders left by an instance that died mid-render (a kill -9, a power cut), once they are older than
 * any render may run (`olderThanMs`): instances sharing a data dir may still be using younger ones. Returns how many.
 */
export async function sweepScratch(deps: Pick<VideoDeps, "config" | "clock">, olderThanMs: number): Promise<number> {
  const scratch = join(deps.config.dataDir, "tmp");
  let names: string[];
  try {
    names = await readdir(scratch);
  } catch {
    return 0; // no scratch folder yet
  }
  let removed = 0;
  for (const name of names) {
    if (name === ".keep") continue;
    const path = join(scratch, name);
    const info = await stat(path).catch(() => null);
    if (!info || deps.clock.now() - info.mtimeMs < olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** Writes the product's image into the work dir, and the cut-out's mask when the image shown is that cut-out. */
export async function stageProduct(deps: VideoDeps, workDir: string, product: ProductRow): Promise<RenderProduct> {
  const { storage } = deps;
  const image = await storage.get(product.imageKey);
  if (!image) throw new RenderFailure("product_image_missing", "The product's image is missing from storage.");
  const ext = product.imageType === "image/png" ? "png" : product.imageType === "image/webp" ? "webp" : "jpg";
  const imagePath = join(workDir, `product.${ext}`);
  await writeFile(imagePath, new Uint8Array(await image.body.arrayBuffer()));
  const cutout = product.dekupeStatus === "ready" && product.imageKey === product.dekupePreviewKey;
  let maskPath: string | null = null;
  if (cutout && product.dekupeMaskKey) {
    const mask = await storage.get(product.dekupeMaskKey);
    if (mask) {
      maskPath = join(workDir, "mask.png");
      await writeFile(maskPath, new Uint8Array(await mask.body.arrayBuffer()));
    }
  }
  return { id: product.id, name: product.name, description: product.description, imagePath, maskPath, cutout };
}

export type BrandedInputs = { prompt: Record<string, unknown>; logoPath?: string; font?: string };

/** The prompt under the account's brand colours (the video's own win), and the brand's logo (copied into workDir) and font. */
export async function brandedInputs(deps: VideoDeps, accountId: string, templateId: string, prompt: Record<string, unknown>, workDir: string): Promise<BrandedInputs> {
  const brand = await deps.brand?.forRender(accountId, workDir);
  const schema = deps.templates.get(templateId)?.definition.prompt;
  return {
    prompt: brand ? withBrandColors(schema, prompt, brand) : prompt,
    logoPath: brand?.logoPath ?? undefined,
    font: brand?.font ?? undefined,
  };
}

/** A request as the renderer will see it, staged in a scratch folder that `use` may read until it returns. */
export type Staged = BrandedInputs & { workDir: string; product: RenderProduct };

export type LayoutInput = { accountId: string; templateId: string; product: ProductRow; prompt: Record<string, unknown>; language: string; aspect: Aspect };

/**
 * Stages a request's inputs, hands them to `use`, and removes them. A product image gone from storage is a 422 naming
 * product_id, or, with `missingImage` given, that value (create leaves it to the render, which fails and refunds).
 */
export async function withStaged<T>(deps: VideoDeps, input: LayoutInput, label: string, use: (staged: Staged) => Promise<T>, missingImage?: () => T): Promise<T> {
  const workDir = await makeWorkDir(deps, label);
  try {
    let product: RenderProduct;
    try {
      product = await stageProduct(deps, workDir, input.product);
    } catch (e) {
      if (!(e instanceof RenderFailure)) throw e;
      if (missingImage) return missingImage();
      throw errors.invalidField("product_id", e.message);
    }
    const branded = await brandedInputs(deps, input.accountId, input.templateId, input.prompt, workDir);
    return await use({ ...branded, workDir, product });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * The renderer's layout check (text measured, boxes placed; no encoding): copy that cannot be laid out is `422
 * Validation failed` with a detail per field, before any ledger row or video row. A renderer without a check lets
 * every request through.
 */
export async function checkLayout(deps: VideoDeps, input: LayoutInput): Promise<void> {
  const check = deps.renderer.check?.bind(deps.renderer);
  if (!check) return;
  const problems = await withStaged(
    deps,
    input,
    "check",
    async (s) => {
      const key = await verdictKey(input, s);
      const known = deps.layoutVerdicts?.get(key);
      if (known) return known;
      try {
        const problems = await check({ ...s, templateId: input.templateId, language: input.language, aspect: input.aspect, scale: deps.renderScale });
        deps.layoutVerdicts?.set(key, problems);
        return problems;
      } catch (err) {
        // A check that breaks (a template's build() throwing, say) blocks nobody: the render meets the same fault,
        // fails the video and refunds it, as it did before checks existed. The log keeps the cause.
        deps.logger.warn("the renderer's layout check failed; the request goes on unchecked", { template: input.templateId, err });
        return [];
      }
    },
    // Without its image there is nothing to lay out; the render then fails as product_image_missing and refunds.
    () => [],
  );
  if (problems.length) throw errors.validation(problems, `The copy cannot be laid out in the ${input.aspect} format: ${problems.map((p) => `${p.field}: ${p.message}`).join(" ")}`);
}
