// clean-card, feature-split and minimal-luxe composed for every format: with long copy in en, tr, ar and ja, every text
// and button stays inside the format's safe area, overlaps no other text nor the product, leaves a logo corner free,
// and is set at or above the floors (headline 64 px, other text 36 px), at every moment it is visible.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareRender, sampleCopy, writeSampleProduct, type SampleProduct } from "../plugins/renderer-ffmpeg";
import { logoCorners } from "../plugins/renderer-ffmpeg/logo";
import { layout } from "../plugins/renderer-ffmpeg/scene/spans";
import { ASPECTS, ASPECT_SIZES, safeArea, type Aspect, type Placement, type TemplateDefinition } from "../src/templates";
import cleanCard from "../templates/clean-card";
import featureSplit from "../templates/feature-split";
import minimalLuxe from "../templates/minimal-luxe";

/** Layers that are pictures, not words: they may sit anywhere and under the text (a "-panel" is the renderer's scrim). */
const PICTURE_NAMES = new Set(["product", "panel", "card", "arch", "rule", "backdrop"]);
const isPicture = (name = "") => PICTURE_NAMES.has(name) || name.endsWith("-panel");
const LANGS = ["en", "tr", "ar", "ja"];

let dir: string;
const products: Record<string, SampleProduct> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-formats-d-"));
  for (const lang of LANGS) products[lang] = await writeSampleProduct(join(dir, lang), lang);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Rect = { x: number; y: number; width: number; height: number };
const inside = (b: Rect, s: Rect) => b.x >= s.x - 0.5 && b.y >= s.y - 0.5 && b.x + b.width <= s.x + s.width + 0.5 && b.y + b.height <= s.y + s.height + 0.5;
const meets = (a: Rect, b: Rect) =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0.5 && Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0.5;
const show = (r: Rect) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}×${Math.round(r.height)}`;

/** Everything wrong with one render's layout, as readable lines (empty when it is right). */
async function problems(def: TemplateDefinition, aspect: Aspect, lang: string, copy: "short" | "long"): Promise<string[]> {
  const properties = (def.prompt.properties ?? {}) as Parameters<typeof sampleCopy>[0];
  const job = await prepareRender({
    definition: def, product: products[lang]!, prompt: sampleCopy(properties, lang, copy), language: lang, aspect, scale: 0.25,
    workDir: join(dir, `${def.meta.id}-${aspect.replace(":", "x")}-${lang}-${copy}`),
  });
  const { width, height } = ASPECT_SIZES[aspect];
  // Placements are where layers end up on screen, after a right-to-left scene is mirrored: the apps' covered strip is
  // still on the right, so the screen's safe area is the left-to-right one.
  const s = safeArea(aspect);
  const safe = { x: s.x, y: s.y, width: s.w, height: s.h };
  // The renderer's own layout check (which also knows when a text was cut short at its floor) must agree.
  const out: string[] = job.problems.map((p) => `layout check: ${JSON.stringify(p)}`);
  const layers = job.scene.layers.filter((l) => !!l);
  for (const layer of layers) {
    if (isPicture(layer.name)) continue;
    const size = (layer.image as { fontSize?: number }).fontSize;
    const floor = layer.name === "headline" ? 64 : 36;
    if (size === undefined) out.push(`${layer.name}: no fontSize reported`);
    else if (size < floor) out.push(`${layer.name}: set at ${size} px, floor ${floor}`);
  }
  const opts = { templateWidth: width, rtl: job.rtl, duration: def.meta.duration };
  const product = layers.find((l) => l.name === "product")!.image as unknown as { w: number; content: { w: number; h: number } };
  for (let t = 0; t <= def.meta.duration + 1e-9; t += 0.25) {
    const now = layout(job.scene, t, opts).filter((p) => p.visible);
    const words = now.filter((p) => !isPicture(p.name));
    const at = `t=${t.toFixed(2)}`;
    const shot = now.find((p) => p.name === "product");
    if (t === 0 && !shot) out.push("the product is not in frame 0");
    let content: Rect | null = null;
    if (shot) {
      const k = shot.width / product.w;
      const w = product.content.w * k;
      const h = product.content.h * k;
      content = { x: shot.x + (shot.width - w) / 2, y: shot.y + (shot.height - h) / 2, width: w, height: h };
    }
    words.forEach((a: Placement, i) => {
      if (!inside(a, safe)) out.push(`${at} ${a.name} ${show(a)} leaves the safe area ${show(safe)}`);
      if (content && meets(a, content)) out.push(`${at} ${a.name} ${show(a)} covers the product ${show(content)}`);
      for (const b of words.slice(i + 1)) if (meets(a, b)) out.push(`${at} ${a.name} ${show(a)} overlaps ${b.name} ${show(b)}`);
    });
    // A logo corner (with the room logo.ts keeps around it) free of words, so the brand never covers the copy.
    const free = logoCorners({ width, height }, 220, 110).some((c) => {
      const room = { x: c.x - 24, y: c.y - 24, width: c.width + 48, height: c.height + 48 };
      return !words.some((w) => meets(w, room));
    });
    if (!free) out.push(`${at} every logo corner has text in it`);
  }
  return [...new Set(out)];
}

describe.each([cleanCard, featureSplit, minimalLuxe].map((d) => [d.meta.id, d as unknown as TemplateDefinition] as const))("%s", (_id, def) => {
  for (const aspect of ASPECTS) {
    test(`${aspect}: long copy in ${LANGS.join(", ")} fits the safe area, apart, at or above the floors`, async () => {
      const found: string[] = [];
      for (const lang of LANGS) for (const line of await problems(def, aspect, lang, "long")) found.push(`${lang}: ${line}`);
      expect(found).toEqual([]);
    });
  }
  test("short copy in every format fits too", async () => {
    const found: string[] = [];
    for (const aspect of ASPECTS) for (const line of await problems(def, aspect, "en", "short")) found.push(`${aspect}: ${line}`);
    expect(found).toEqual([]);
  });
});
