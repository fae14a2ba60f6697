// flash-sale, showcase and spotlight composed for every format: with long copy in en, ar and ja, every text and button
// stays inside the safe area, apart from the others and off the product at every moment it shows, at or above the
// size floors, and one logo corner stays free of words (prepareRender's boxes only: no ffmpeg).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareRender, sampleCopy, writeSampleProduct, type SampleProduct } from "../plugins/renderer-ffmpeg";
import { logoCorners, LOGO_MAX } from "../plugins/renderer-ffmpeg/logo";
import { layout } from "../plugins/renderer-ffmpeg/scene/spans";
import { ASPECT_SIZES, ASPECTS, loadTemplates, safeArea, type Aspect, type TemplateRegistry } from "../src/templates";
import type { Layer, ProductAsset } from "../src/templates/api";
import { BUILTIN_TEMPLATES } from "../templates";

const IDS = ["flash-sale", "showcase", "spotlight"];
const LANGS = ["en", "ar", "ja"];
/** Layers that carry no words a viewer must read whole: the product and the decoration drawn under the words. */
const PICTURES = new Set(["product", "ticker", "card-panel"]);
/** The renderer's own panels (scrims) go under a text on purpose. */
const picture = (name = "") => PICTURES.has(name) || name.endsWith("-panel");
const HEADLINE_FLOOR = 64;
const TEXT_FLOOR = 36;
/** Room the logo keeps around itself (logo.ts), so that words beside it do not read as one jumble. */
const LOGO_CLEARANCE = 32;

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 1 && Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 1;

let registry: TemplateRegistry;
let dir: string;
const products = new Map<string, SampleProduct>();

beforeAll(async () => {
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
  dir = mkdtempSync(join(tmpdir(), "vitrin-formats-c-"));
  for (const lang of LANGS) products.set(lang, await writeSampleProduct(join(dir, `product-${lang}`), lang));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function prepared(id: string, aspect: Aspect, lang: string, extra: Record<string, unknown> = {}, tag = "") {
  const tpl = registry.get(id)!;
  const properties = (tpl.promptSchema.properties ?? {}) as Record<string, { maxLength?: number }>;
  return prepareRender({
    definition: tpl.definition, product: products.get(lang)!, prompt: { ...sampleCopy(properties, lang, "long"), ...extra }, language: lang, aspect,
    scale: 0.25, workDir: join(dir, `${id}-${aspect.replace(":", "x")}-${lang}${tag}`),
  });
}

/** What is wrong with one render's layout: every text box checked every tenth of a second. */
function problems(job: Awaited<ReturnType<typeof prepared>>, aspect: Aspect): string[] {
  const { width } = ASPECT_SIZES[aspect];
  const duration = job.duration;
  // Each problem once, with the first moment it shows.
  const found = new Map<string, string>();
  const note = (what: string, t?: number) => {
    if (!found.has(what)) found.set(what, t === undefined ? what : `${what} (from ${t.toFixed(1)} s)`);
  };
  const layers = job.scene.layers.filter((l): l is Layer => !!l);
  const productLayer = layers.find((l) => l.name === "product");
  if (!productLayer) return ["no product layer"];
  const content = (productLayer.image as ProductAsset).content;
  // The boxes are the scene's after mirroring, so a right-to-left render is held to the same safe area on screen.
  const safe = safeArea(aspect);
  const words = layers.filter((l) => !picture(l.name));
  for (const l of words) {
    const size = (l.image as { fontSize?: number }).fontSize;
    const floor = l.name === "headline" ? HEADLINE_FLOOR : TEXT_FLOOR;
    // A group the renderer rebuilt (a panel under one of its texts) no longer carries the size; the layout engine's
    // ledger still checks its texts against the floors, and reports text cut short at its floor (below).
    if (typeof size === "number" && size < floor - 0.01) note(`${l.name}: ${size.toFixed(1)} px, under the floor ${floor}`);
  }
  const wordBoxes: Box[] = [];
  for (let t = 0; t <= duration + 1e-9; t += 0.1) {
    const at = layout(job.scene, t, { templateWidth: width, rtl: job.rtl, duration });
    const prod = at.find((p) => p.name === "product")!;
    const k = prod.width / productLayer.image.w;
    const body = { x: prod.x + prod.width / 2 - (content.w * k) / 2, y: prod.y + prod.height / 2 - (content.h * k) / 2, width: content.w * k, height: content.h * k };
    const shown = at.filter((p) => p.visible && !picture(p.name));
    for (const p of shown) {
      wordBoxes.push(p);
      const inside = p.x >= safe.x - 1 && p.y >= safe.y - 1 && p.x + p.width <= safe.x + safe.w + 1 && p.y + p.height <= safe.y + safe.h + 1;
      if (!inside) note(`${p.name} leaves the safe area`, t);
      if (overlap(p, body)) note(`${p.name} covers the product`, t);
    }
    for (let i = 0; i < shown.length; i++) {
      for (let j = i + 1; j < shown.length; j++) if (overlap(shown[i]!, shown[j]!)) note(`${shown[i]!.name} overlaps ${shown[j]!.name}`, t);
    }
  }
  const corners = logoCorners(ASPECT_SIZES[aspect], LOGO_MAX.width, LOGO_MAX.height).map((c) => ({
    x: c.x - LOGO_CLEARANCE, y: c.y - LOGO_CLEARANCE, width: c.width + 2 * LOGO_CLEARANCE, height: c.height + 2 * LOGO_CLEARANCE,
  }));
  if (!corners.some((c) => !wordBoxes.some((b) => overlap(b, c)))) note("every logo corner holds words");
  // The renderer's layout engine agrees: nothing cut short, outside the safe area or overlapping where it settles.
  for (const p of job.problems) note(`layout engine: ${p.field}: ${p.message}`);
  return [...found.values()];
}

describe("every format, long copy", () => {
  for (const id of IDS) {
    for (const aspect of ASPECTS) {
      test(`${id} ${aspect}: words inside the safe area, apart, off the product, at or above the floors (en, ar, ja)`, async () => {
        const jobs = await Promise.all(LANGS.map((lang) => prepared(id, aspect, lang)));
        const report = Object.fromEntries(LANGS.map((lang, i) => [lang, problems(jobs[i]!, aspect)]));
        expect(report).toEqual(Object.fromEntries(LANGS.map((lang) => [lang, []])));
      }, 60_000);
    }
  }
});

describe("colours", () => {
  /** The average colour of a scene's backdrop. */
  const backdropMean = async (job: Awaited<ReturnType<typeof prepared>>) => {
    const bg = job.scene.background;
    const stats = await sharp("image" in bg ? bg.image.path : bg.path).stats();
    return stats.channels.slice(0, 3).map((c) => c.mean);
  };
  const distance = (a: number[], b: number[]) => Math.hypot(...a.map((v, i) => v - b[i]!));

  for (const id of IDS) {
    test(`${id}: the shop's colors.background sets the backdrop, and the words keep their places on it`, async () => {
      const light = [0xf4, 0xef, 0xe6];
      const [plain, shop] = await Promise.all([prepared(id, "1:1", "en"), prepared(id, "1:1", "en", { colors: { background: "#f4efe6" } }, "-light")]);
      const [a, b] = await Promise.all([backdropMean(plain), backdropMean(shop)]);
      expect(distance(b, light)).toBeLessThan(90);
      expect(distance(a, light)).toBeGreaterThan(150);
      expect(problems(shop, "1:1")).toEqual([]);
    }, 60_000);
  }
});
