// Readable colour (issue 20, point 3): texts measured on rendered frames reach WCAG AA against what is around their
// glyphs, because the renderer adds a panel (or, on a button, an outline) where the colours asked for would fail.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { samplePrompt, stillFrame, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { frameContrast } from "../plugins/renderer-ffmpeg/frame-contrast";
import { defineTemplate, t, type Layer, type Scene, type TemplateDefinition } from "../src/templates/api";
import { loadTemplates } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";

const work = mkdtempSync(join(tmpdir(), "vitrin-contrast-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** The poster still of a template at scale 0.5 with the sample product, and every text's contrast on it. */
async function poster(definition: TemplateDefinition, prompt: Record<string, unknown>, language = "en") {
  const dir = join(work, String(++n));
  const product = await writeSampleProduct(dir, language);
  const { png, job } = await stillFrame("ffmpeg", { definition, product, prompt, language, scale: 0.5, workDir: dir });
  const at = definition.meta.posterAt ?? definition.meta.duration * 0.75;
  return { job, texts: await frameContrast(png, job, at) };
}

const layersOf = (scene: Scene) => scene.layers.filter((l): l is Layer => !!l);
const panels = (scene: Scene) => layersOf(scene).filter((l) => l.name?.endsWith("-panel"));

function expectReadable(texts: { layer: string; ratio: number; threshold: number; pixels: number }[], where: string) {
  expect(texts.length).toBeGreaterThan(0);
  const bad = texts.filter((x) => x.pixels > 0 && x.ratio < x.threshold).map((x) => `${where} ${x.layer}: ${x.ratio.toFixed(2)} < ${x.threshold}`);
  expect(bad).toEqual([]);
}

const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });

describe("built-in templates with brand colours that fail as asked", () => {
  const cases: [string, Record<string, string>][] = [
    ["white text on a pale background", { background: "#f5f5f5", text: "#ffffff" }],
    ["dark text on a dark background, dark brand colours", { background: "#121212", text: "#1c1c1c", primary: "#202020", accent: "#2a2a2a" }],
  ];
  for (const [what, colors] of cases) {
    test(`${what}: every text on every template's poster reaches its threshold`, async () => {
      for (const tpl of registry.list()) {
        const { texts } = await poster(tpl.definition, { ...samplePrompt("en"), colors });
        expectReadable(texts, tpl.info.id);
      }
    }, 300_000);
  }
});

/** A one-layer template: a text of a colour on a flat background, or the same text inside a card (a group). */
function plain(id: string, o: { background: string; color?: string; size?: number; card?: string; button?: { color: string; background: string }; left?: boolean }) {
  return defineTemplate({
    meta: { id, name: id, description: "test", aspect: "9:16", duration: 2, credits: 1, posterAt: 1.5 },
    prompt: t.Object({}),
    async build(ctx) {
      const bg = await ctx.svg(`<rect width="1080" height="1920" fill="${o.background}"/>`, 1080, 1920, "background");
      const style = { name: "words", text: "Readable words", size: o.size ?? 40, maxWidth: 900, color: o.color ?? "#ffffff" };
      if (o.button) {
        const button = await ctx.button({ name: "cta", text: "Shop now", size: 40, maxWidth: 600, ...o.button });
        return { background: bg, layers: [{ name: "cta", image: button, x: 540, y: 960, opacity: [[0.2, 0], [0.6, 1]] }] };
      }
      const text = await ctx.text(style);
      const image = o.card
        ? await ctx.group({ name: "card", w: 1000, h: 300, svg: `<rect width="1000" height="300" rx="30" fill="${o.card}"/>`, items: [{ image: text, x: 500, y: 150 }] })
        : text;
      // `left`: set at the left margin by its left edge, so mirroring for right to left moves it to the right.
      const x = o.left ? { x: 80, anchor: [0, 0.5] as [number, number] } : { x: 540 };
      return { background: bg, layers: [{ name: o.card ? "card" : "words", image, ...x, y: [[0, 1000], [0.8, 960]], opacity: [[0.2, 0], [0.6, 1]] }] };
    },
  }) as unknown as TemplateDefinition;
}

describe("the readability pass", () => {
  test("text that reads well gets no panel", async () => {
    const { job, texts } = await poster(plain("dark-on-white", { background: "#ffffff", color: "#1a1a1a" }), {});
    expect(panels(job.scene)).toEqual([]);
    expectReadable(texts, "dark-on-white");
  }, 60_000);

  test("white text on a pale background gets a dark panel that moves and fades with it", async () => {
    const { job, texts } = await poster(plain("white-on-pale", { background: "#f5f5f5", color: "#ffffff" }), {});
    const [panel] = panels(job.scene);
    const text = layersOf(job.scene).find((l) => l.name === "words")!;
    expect(panel).toBeDefined();
    expect(layersOf(job.scene).indexOf(panel!)).toBeLessThan(layersOf(job.scene).indexOf(text));
    expect(panel!.y).toEqual(text.y);
    expect(panel!.opacity).toEqual(text.opacity);
    expect(panel!.image.w).toBeGreaterThan(text.image.w);
    expectReadable(texts, "white-on-pale");
  }, 60_000);

  test("right to left: the panel is mirrored with its text", async () => {
    const { job, texts } = await poster(plain("white-on-pale-ar", { background: "#f5f5f5", color: "#ffffff", left: true }), {}, "ar");
    expect(panels(job.scene).length).toBe(1);
    expectReadable(texts, "white-on-pale-ar");
  }, 60_000);

  test("mid-grey text on mid-grey reaches 4.5:1 (small text) with the panel that works best", async () => {
    const { job, texts } = await poster(plain("grey-on-grey", { background: "#808080", color: "#777777", size: 36 }), {});
    expect(panels(job.scene).length).toBeGreaterThan(0);
    expect(texts[0]!.threshold).toBe(4.5);
    expectReadable(texts, "grey-on-grey");
  }, 60_000);

  test("a text on a group's own card gets its panel inside the group, not under the card", async () => {
    const { job, texts } = await poster(plain("pale-card", { background: "#202020", color: "#ffe9a8", card: "#fff4d6" }), {});
    expect(panels(job.scene)).toEqual([]);
    expectReadable(texts, "pale-card");
  }, 60_000);

  test("a button label that does not read on the button's fill gets an outline", async () => {
    const { job, texts } = await poster(plain("pale-button", { background: "#333333", button: { color: "#ffffff", background: "#f0f0f0" } }), {});
    const cta = layersOf(job.scene).find((l) => l.name === "cta")!;
    expect(cta.image.ink?.[0]?.outline).toBe("#000000");
    expectReadable(texts, "pale-button");
  }, 60_000);

  test("a button label that reads on its fill is left as it is", async () => {
    const { job } = await poster(plain("fine-button", { background: "#333333", button: { color: "#ffffff", background: "#1f3b63" } }), {});
    const cta = layersOf(job.scene).find((l) => l.name === "cta")!;
    expect(cta.image.ink?.[0]?.outline).toBeUndefined();
  }, 60_000);
});
