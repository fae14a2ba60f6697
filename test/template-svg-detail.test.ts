// ctx.svg's `detail` option: a backdrop drawn at reduced resolution is stretched to the whole frame by the renderer,
// and the same picture used as a layer or a group's item is refused with a clear error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { prepareRender } from "../plugins/renderer-ffmpeg";
import { stillOf } from "../plugins/renderer-ffmpeg/preview";
import { defineTemplate, t, type BuildContext, type Scene } from "../src/templates";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";

let dir: string;
let product: FixtureProduct;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-svg-detail-test-"));
  product = await cutoutProduct(join(dir, "product"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Left half red, right half blue, in template pixels of a 1:1 frame. */
const HALVES = '<rect width="540" height="1080" fill="#ff0000"/><rect x="540" width="540" height="1080" fill="#0000ff"/>';

function template(build: (ctx: BuildContext<unknown>) => Promise<Scene>) {
  return defineTemplate({
    meta: { id: "detail", name: "Detail", description: "A backdrop drawn at reduced detail", aspect: "1:1", duration: 6, credits: 1 },
    prompt: t.Object({}),
    build: build as never,
  });
}

const prepare = (definition: ReturnType<typeof template>, name: string) =>
  prepareRender({ definition, product, prompt: {}, language: "en", scale: 0.5, workDir: join(dir, name), startFrame: 0 });

describe("ctx.svg detail", () => {
  test("a backdrop drawn at half detail is a smaller picture, and the frame shows it stretched to the full size", async () => {
    const definition = template(async (ctx) => ({ background: await ctx.svg(HALVES, 1080, 1080, "background", { detail: 0.5 }), layers: [] }));
    const job = await prepare(definition, "stretched");
    const bg = job.scene.background as { path: string; width: number; height: number; w: number; h: number };
    // Render scale 0.5 × detail 0.5: a 270 px picture that still stands for 1080 template pixels.
    expect([bg.width, bg.height, bg.w, bg.h]).toEqual([270, 270, 1080, 1080]);
    expect((await sharp(bg.path).metadata()).width).toBe(270);
    const still = await stillOf("ffmpeg", job);
    const { data, info } = await sharp(still).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([540, 540]);
    const at = (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    // Red across the left half and blue across the right, out to the frame's far edges.
    for (const [x, y] of [[5, 5], [130, 270], [260, 534]]) expect(at(x, y)[0]).toBeGreaterThan(200);
    for (const [x, y] of [[280, 5], [410, 270], [534, 534]]) expect(at(x, y)[2]).toBeGreaterThan(200);
  }, 60_000);

  test("the same picture as a layer is refused, naming the layer", async () => {
    const definition = template(async (ctx) => {
      const soft = await ctx.svg(HALVES, 1080, 1080, "soft", { detail: 0.5 });
      return { background: await ctx.svg(HALVES, 1080, 1080), layers: [{ name: "overlay", image: soft, x: 540, y: 540 }] };
    });
    await expect(prepare(definition, "layer")).rejects.toThrow('layer "overlay" uses a picture drawn at reduced detail (the svg option "detail"): only a scene\'s background may');
  });

  test("the same picture as a group's item is refused, naming the group", async () => {
    const definition = template(async (ctx) => {
      const soft = await ctx.svg(HALVES, 1080, 1080, "soft", { detail: 0.5 });
      const card = await ctx.group({ name: "card", w: 1080, h: 1080, items: [{ image: soft, x: 540, y: 540 }] });
      return { background: await ctx.svg(HALVES, 1080, 1080), layers: [{ name: "card", image: card, x: 540, y: 540 }] };
    });
    await expect(prepare(definition, "group")).rejects.toThrow('group "card" uses a picture drawn at reduced detail');
  });
});
