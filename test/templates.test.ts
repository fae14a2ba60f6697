// Templates: loading, metadata, prompt validation, strings in every language, text fitting, RTL mirroring, previews.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { ensureFonts, FONT_FILES, prepareRender, renderTextImage, samplePrompt } from "../plugins/renderer-ffmpeg";
import { BUILTIN_STRINGS, LANGUAGES, loadTemplates, makeStrings, type TemplateRegistry } from "../src/templates";
import { ConfigError } from "../src/config";
import { BUILTIN_TEMPLATES } from "../templates";
import { cutoutProduct, photoProduct, type FixtureProduct } from "./fixtures/render/product";
import { startService, type TestService } from "./helpers";

let registry: TemplateRegistry;
let dir: string;
let product: FixtureProduct;

beforeAll(async () => {
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
  dir = mkdtempSync(join(tmpdir(), "vitrin-templates-test-"));
  product = await cutoutProduct(join(dir, "product"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sizes = { "9:16": [1080, 1920], "4:5": [1080, 1350], "1:1": [1080, 1080], "16:9": [1920, 1080] } as const;

describe("loading", () => {
  test("every built-in template loads, with sane metadata", () => {
    const list = registry.list();
    expect(list.length).toBeGreaterThanOrEqual(5);
    for (const { info } of list) {
      expect(info.id).toMatch(/^[a-z0-9-]+$/);
      expect(info.name.length).toBeGreaterThan(0);
      expect(info.description.length).toBeGreaterThan(10);
      expect([info.width, info.height]).toEqual([...sizes[info.aspect]]);
      expect(info.duration).toBeGreaterThanOrEqual(6);
      expect(info.duration).toBeLessThanOrEqual(15);
      expect(info.fps).toBe(30);
      expect(info.credits).toBeGreaterThanOrEqual(1);
      expect(typeof info.premium).toBe("boolean");
      expect(registry.get(info.id)?.info).toBe(info);
    }
    expect(new Set(list.map((t) => t.info.aspect))).toEqual(new Set(["9:16", "1:1", "16:9"]));
    expect(list.some((t) => t.info.premium)).toBe(true);
    expect(registry.get("no-such-template")).toBeUndefined();
  });

  test("the built-in list (templates/index.ts) names every template of the folder", () => {
    const files = readdirSync(join(import.meta.dir, "../templates")).filter((f) => f.endsWith(".ts") && f !== "index.ts").length;
    expect(BUILTIN_TEMPLATES.length).toBe(files);
    expect(BUILTIN_TEMPLATES.map((d) => d.meta.id).sort()).toEqual(registry.list().map((t) => t.info.id).sort());
  });

  test("a folder of dropped-in templates loads, including the factory form that imports nothing", async () => {
    const extra = join(dir, "extra");
    await Bun.write(
      join(extra, "tiny.js"),
      `export default ({ defineTemplate, t }) => defineTemplate({
        meta: { id: "tiny", name: "Tiny", description: "A dropped-in template", aspect: "1:1", duration: 6, credits: 1 },
        prompt: t.Object({ headline: t.Optional(t.String()) }),
        async build(ctx) { return { background: await ctx.svg('<rect width="1080" height="1080" fill="#123456"/>', 1080, 1080), layers: [] }; },
      });`,
    );
    await Bun.write(join(extra, "README.md"), "not a template");
    const reg = await loadTemplates({ builtin: BUILTIN_TEMPLATES, dirs: [extra] });
    expect(reg.get("tiny")?.info.aspect).toBe("1:1");
    expect(reg.list().length).toBe(registry.list().length + 1);
    await expect(loadTemplates({ dirs: [extra, extra] })).rejects.toThrow(/defined twice/);
    await expect(loadTemplates({ dirs: [join(dir, "missing")] })).rejects.toThrow(/cannot read the templates folder/);
  });

  test("a dropped-in template with a built-in's id is refused, naming both", async () => {
    const clash = join(dir, "clash");
    await Bun.write(
      join(clash, "spotlight.js"),
      `export default ({ defineTemplate, t }) => defineTemplate({
        meta: { id: "spotlight", name: "Mine", description: "Same id as a built-in", aspect: "1:1", duration: 6, credits: 1 },
        prompt: t.Object({}),
        async build(ctx) { return { background: await ctx.svg('<rect width="1080" height="1080"/>', 1080, 1080), layers: [] }; },
      });`,
    );
    await expect(loadTemplates({ builtin: BUILTIN_TEMPLATES, dirs: [clash] })).rejects.toThrow(`template id "spotlight" is defined twice: builtin:spotlight and ${join(clash, "spotlight.js")}`);
  });
});

describe("prompt", () => {
  test("the JSON schema is plain JSON describing an object", () => {
    for (const t of registry.list()) {
      expect(t.promptSchema.type).toBe("object");
      expect(JSON.parse(JSON.stringify(t.promptSchema))).toEqual(t.promptSchema);
      expect(t.promptSchema.additionalProperties).toBe(false);
    }
  });

  test("accepts an empty prompt and typical values", () => {
    for (const t of registry.list()) {
      expect(t.validatePrompt({})).toEqual({ ok: true });
      const props = t.promptSchema.properties as Record<string, unknown>;
      const typical: Record<string, unknown> = { headline: "Summer edition", price: 19.9, currency: "EUR", call_to_action: "Get yours", colors: { primary: "#112233", accent: "#FFAA00" } };
      if (props.features) typical.features = ["Light", "Strong"];
      if (props.old_price) typical.old_price = "29,90 €";
      for (const k of Object.keys(typical)) if (!props[k]) delete typical[k];
      expect(t.validatePrompt(typical)).toEqual({ ok: true });
      expect(t.validatePrompt(samplePrompt("tr"))).toEqual(props.old_price ? { ok: true } : t.validatePrompt(samplePrompt("tr")));
    }
  });

  test("rejects bad values with field paths", () => {
    const showcase = registry.get("showcase")!;
    const r = showcase.validatePrompt({ headline: 5, features: ["fine", 7], colors: { primary: "red" }, price: -1, unknown_field: true });
    expect(r.ok).toBe(false);
    const fields = r.ok ? [] : r.problems.map((p) => p.field);
    expect(fields).toContain("headline");
    expect(fields).toContain("features.1");
    expect(fields).toContain("colors.primary");
    expect(fields).toContain("price");
    expect(fields).toContain("unknown_field");
    const colour = r.ok ? null : r.problems.find((p) => p.field === "colors.primary");
    expect(colour?.message).toMatch(/#1a2b3c/);
    expect(showcase.validatePrompt({ features: ["a", "b", "c", "d"] }).ok).toBe(false);
    expect(showcase.validatePrompt({ headline: "x".repeat(200) }).ok).toBe(false);
    expect(showcase.validatePrompt({ currency: "dollars" }).ok).toBe(false);
    expect(showcase.validatePrompt([])).toEqual({ ok: false, problems: [{ field: "", message: "must be an object" }] });
    expect(showcase.validatePrompt(null).ok).toBe(false);
  });
});

describe("strings", () => {
  test("built-in strings exist in en, tr, de, fr, es, ar, ja with the same keys", () => {
    expect([...LANGUAGES]).toEqual(["en", "tr", "de", "fr", "es", "ar", "ja"]);
    const keys = Object.keys(BUILTIN_STRINGS.en).sort() as (keyof typeof BUILTIN_STRINGS.en)[];
    for (const lang of LANGUAGES) {
      expect(Object.keys(BUILTIN_STRINGS[lang]).sort()).toEqual(keys);
      for (const k of keys) expect(BUILTIN_STRINGS[lang][k]!.length).toBeGreaterThan(0);
    }
  });

  test("every template has its words in all seven languages", () => {
    for (const t of registry.list()) expect(t.info.languages).toEqual(expect.arrayContaining([...LANGUAGES]));
  });

  test("other languages fall back to English; regional tags use their language", () => {
    expect(makeStrings("pt-BR", undefined)("shopNow")).toBe("Shop now");
    expect(makeStrings("de-AT", undefined)("shopNow")).toBe("Jetzt kaufen");
    expect(makeStrings("ar", { en: { x: "X" } })("x")).toBe("X");
    expect(makeStrings("ja", undefined)("only", { price: "¥100" })).toBe("わずか¥100");
  });
});

describe("text", () => {
  test("fonts ship with the project (npm packages), not the host", async () => {
    expect(FONT_FILES.length).toBeGreaterThanOrEqual(10);
    for (const f of FONT_FILES) {
      expect(f).toContain("@expo-google-fonts/");
      const head = new Uint8Array(await Bun.file(f).slice(0, 4).arrayBuffer());
      expect([...head]).toEqual([0, 1, 0, 0]); // TrueType
    }
    await ensureFonts();
    // fontconfig is pointed at a configuration without font folders (unless the operator set one).
    expect(process.env.FONTCONFIG_FILE).toBeTruthy();
  });

  test("long text shrinks to fit its box; short text keeps its size", async () => {
    const long = await renderTextImage({ text: "An extraordinarily long product name that will never fit on one line", size: 80, maxWidth: 600, maxLines: 2, font: "display", weight: 800 }, "en", 1);
    expect(long.fontSize).toBeLessThan(80);
    expect(long.width).toBeLessThanOrEqual(601);
    expect(long.lines).toBeLessThanOrEqual(2);
    const oneLine = await renderTextImage({ text: "An extraordinarily long product name", size: 80, maxWidth: 500 }, "en", 1);
    expect(oneLine.fontSize).toBeLessThan(80);
    expect(oneLine.width).toBeLessThanOrEqual(501);
    const short = await renderTextImage({ text: "Mug", size: 80, maxWidth: 600 }, "en", 1);
    expect(short.fontSize).toBe(80);
    // Markup characters are text; emoji are drawn (in colour: test/scripts.test.ts), never dropped.
    const marked = await renderTextImage({ text: "Tom & Jerry <b>mug</b>", size: 40, maxWidth: 900 }, "en", 1);
    expect(marked.width).toBeGreaterThan(300);
    const emoji = await renderTextImage({ text: "🎉🎉", size: 40, maxWidth: 300 }, "en", 1);
    expect([emoji.width > 60, emoji.lines]).toEqual([true, 1]);
    const half = await renderTextImage({ text: "Mug", size: 80, maxWidth: 600 }, "en", 0.5);
    expect(Math.abs(half.width - short.width / 2)).toBeLessThanOrEqual(3);
  });

  test("Arabic lines start at the right, Latin at the left; Japanese is drawn", async () => {
    /** Where the ink of the last line sits, from 0 (left) to 1 (right). */
    const lastLineCentre = async (png: Buffer) => {
      const { data, info } = await sharp(png).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
      let sum = 0;
      let weight = 0;
      for (let y = Math.floor(info.height * 0.75); y < info.height; y++) {
        for (let x = 0; x < info.width; x++) {
          const a = data[y * info.width + x]!;
          sum += a * x;
          weight += a;
        }
      }
      return sum / weight / info.width;
    };
    const style = { size: 60, maxWidth: 700, maxLines: 3, minSize: 60 };
    const ar = await renderTextImage({ ...style, text: "هذا كوب قهوة خزفي مصنوع يدوياً بعناية فائقة في ورشة صغيرة" }, "ar", 1);
    const en = await renderTextImage({ ...style, text: "This stoneware coffee mug is carefully made by hand in a small workshop" }, "en", 1);
    expect(ar.lines).toBeGreaterThan(1);
    expect(en.lines).toBeGreaterThan(1);
    expect(await lastLineCentre(ar.png)).toBeGreaterThan(0.55);
    expect(await lastLineCentre(en.png)).toBeLessThan(0.45);
    const ja = await renderTextImage({ text: "今すぐ購入", size: 60, maxWidth: 800 }, "ja", 1);
    expect(ja.width).toBeGreaterThan(250);
    expect(ja.height).toBeGreaterThan(40);
  });
});

describe("layout", () => {
  test("right-to-left languages mirror the layout", async () => {
    for (const id of ["feature-split", "flash-sale"]) {
      const def = registry.get(id)!.definition;
      const W = registry.get(id)!.info.width;
      const make = (language: string) =>
        prepareRender({ definition: def, product, prompt: { price: 10, old_price: 20 }, language, scale: 0.1, workDir: join(dir, `${id}-${language}`) });
      const [en, ar] = await Promise.all([make("en"), make("ar")]);
      expect(en.rtl).toBe(false);
      expect(ar.rtl).toBe(true);
      const p = (job: typeof en, name: string) => job.placements.find((l) => l.name === name)!;
      const a = p(en, "product");
      const b = p(ar, "product");
      expect(Math.abs(b.x - (W - a.x - a.width))).toBeLessThan(2);
      expect(a.x + a.width / 2).toBeLessThan(W / 2);
      expect(b.x + b.width / 2).toBeGreaterThan(W / 2);
      // Text anchored at the start edge ends at the mirrored edge.
      const he = p(en, "headline");
      const ha = p(ar, "headline");
      expect(Math.abs(ha.x + ha.width - (W - he.x))).toBeLessThan(2);
      expect(ar.filter).toContain("hflip");
    }
  });

  test("a photo without cut-out is framed, not stretched; a missing image is a clear error", async () => {
    const photo = await photoProduct(join(dir, "photo"));
    const def = registry.get("spotlight")!.definition;
    const job = await prepareRender({ definition: def, product: photo, prompt: {}, language: "en", scale: 0.25, workDir: join(dir, "photo-job") });
    const prod = job.scene.layers.find((l) => l && l.name === "product");
    expect(prod).toBeTruthy();
    const meta = await sharp(prod ? prod.image.path : "").metadata();
    expect(meta.hasAlpha).toBe(true);
    await expect(
      prepareRender({ definition: def, product: { ...photo, imagePath: join(dir, "nope.png") }, prompt: {}, language: "en", scale: 0.25, workDir: join(dir, "x") }),
    ).rejects.toThrow(/product image does not exist/);
  });
});

describe("templates from a folder at start", () => {
  test("one whose build() throws stops the start, naming its file and the error", async () => {
    const extra = join(dir, "throwing");
    await Bun.write(
      join(extra, "boom.js"),
      `export default ({ defineTemplate, t }) => defineTemplate({
        meta: { id: "boom", name: "Boom", description: "Breaks in build", aspect: "16:9", duration: 6, credits: 1 },
        prompt: t.Object({}),
        async build(ctx) { return ctx.nothingHere(); },
      });`,
    );
    const started = startService({ VITRIN_TEMPLATE_DIRS: extra });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(`VITRIN_TEMPLATE_DIRS: the template ${join(extra, "boom.js")} failed to build with the sample product: `);
  });
});

describe("GET /v1/templates/:id/preview", () => {
  test("every listed template previews, a dropped-in one included, with the ffmpeg of the settings", async () => {
    const extra = join(dir, "route-extra");
    await Bun.write(
      join(extra, "dropped.js"),
      `export default ({ defineTemplate, t }) => defineTemplate({
        meta: { id: "dropped", name: "Dropped", description: "A template from VITRIN_TEMPLATE_DIRS", aspect: "16:9", duration: 6, credits: 1 },
        prompt: t.Object({}),
        async build(ctx) {
          const title = await ctx.text({ text: ctx.product.name, size: 90, maxWidth: ctx.safe.w, color: "#ffffff" });
          const bg = await ctx.svg('<rect width="' + ctx.width + '" height="' + ctx.height + '" fill="#2a4d8f"/>', ctx.width, ctx.height);
          return { background: bg, layers: [{ image: title, x: ctx.safe.x + ctx.safe.w / 2, y: ctx.safe.y + ctx.safe.h / 2 }] };
        },
      });`,
    );
    // The ffmpeg of the settings, not of the environment: PATH holds no ffmpeg for this service's previews.
    const bin = join(dir, "route-bin");
    mkdirSync(bin, { recursive: true });
    for (const tool of ["ffmpeg", "ffprobe"]) symlinkSync(Bun.which(tool)!, join(bin, tool));
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    let t: TestService | null = null;
    try {
      t = await startService({ VITRIN_TEMPLATE_DIRS: extra, VITRIN_FFMPEG_PATH: join(bin, "ffmpeg"), VITRIN_FFPROBE_PATH: join(bin, "ffprobe") });
      const acct = await t.newAccount();
      const list = (await t.json("GET", "/v1/templates", { token: acct.token })).body.data as { id: string; width: number; height: number }[];
      expect(list.map((x) => x.id)).toContain("dropped");
      for (const info of list) {
        const res = await t.call("GET", `/v1/templates/${info.id}/preview`, { token: acct.token });
        expect({ id: info.id, status: res.status }).toEqual({ id: info.id, status: 200 });
        expect(res.headers.get("content-type")).toBe("image/png");
        const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
        expect(Math.abs(meta.width! / meta.height! - info.width / info.height)).toBeLessThan(0.01);
      }
      const missing = await t.json("GET", "/v1/templates/no-such-template/preview", { token: acct.token });
      expect(missing.status).toBe(404);
    } finally {
      process.env.PATH = path;
      await t?.close();
    }
  }, 120_000);
});
