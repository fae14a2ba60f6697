// Draws a contact sheet per template: one frame for each format (columns) and language (rows) with the sample product,
// written to docs/templates/<id>.png for the docs (bun run scripts/contact-sheet.ts [ids…] [--copy long] [--at 2.5]
// [--langs en,tr] [--formats 9:16,1:1] [--out folder] [--scale 0.3]).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import sharp from "sharp";
import { sampleCopy, stillFrame, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { ASPECTS, loadTemplates, type Aspect } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const valued = new Set(["copy", "at", "langs", "formats", "out", "scale"]);
const ids = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && valued.has(args[i - 1]!.slice(2))));
const copy = opt("copy") === "long" ? "long" : "short";
const at = opt("at") === undefined ? undefined : Number(opt("at"));
const langs = (opt("langs") ?? "en,tr,ar,ja").split(",");
const formats = (opt("formats")?.split(",") ?? ASPECTS) as Aspect[];
const outDir = resolve(opt("out") ?? join(import.meta.dir, "../docs/templates"));
const scale = Number(opt("scale") ?? 0.3);
const ffmpeg = process.env.FFMPEG ?? "ffmpeg";

/** Every cell is scaled to this height; a row is as wide as its cells. */
const CELL_H = 480;
const GAP = 16;
const LABEL_H = 34;

const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
const chosen = ids.length ? ids : registry.list().map((t) => t.info.id);
mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "vitrin-contact-"));

async function cell(templateId: string, lang: string, aspect: Aspect) {
  const tpl = registry.get(templateId)!;
  const dir = join(work, `${templateId}-${lang}-${aspect.replace(":", "x")}-${copy}`);
  const product = await writeSampleProduct(dir, lang);
  const properties = (tpl.promptSchema.properties ?? {}) as Record<string, { maxLength?: number }>;
  const { png } = await stillFrame(ffmpeg, {
    definition: tpl.definition, product, prompt: sampleCopy(properties, lang, copy), language: lang, aspect, scale, workDir: dir,
  }, at);
  const { data: scaled, info } = await sharp(png).resize({ height: CELL_H }).png().toBuffer({ resolveWithObject: true });
  const width = info.width;
  const label = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${LABEL_H}"><text x="4" y="24" font-family="Inter, sans-serif" font-size="20" fill="#444">${lang} · ${aspect}</text></svg>`,
  );
  const tile = await sharp({ create: { width, height: CELL_H + LABEL_H, channels: 4, background: "#ffffff" } })
    .composite([{ input: scaled, top: 0, left: 0 }, { input: label, top: CELL_H, left: 0 }])
    .png()
    .toBuffer();
  return { tile, width };
}

try {
  for (const id of chosen) {
    if (!registry.get(id)) throw new Error(`unknown template "${id}"`);
    const rows: { tiles: { tile: Buffer; width: number }[] }[] = [];
    for (const lang of langs) rows.push({ tiles: await Promise.all(formats.map((f) => cell(id, lang, f))) });
    const rowWidth = (r: (typeof rows)[number]) => r.tiles.reduce((w, t) => w + t.width, 0) + GAP * (r.tiles.length + 1);
    const width = Math.max(...rows.map(rowWidth));
    const height = rows.length * (CELL_H + LABEL_H + GAP) + GAP;
    const composites = rows.flatMap((r, i) => {
      let x = GAP;
      return r.tiles.map((t) => {
        const c = { input: t.tile, left: x, top: GAP + i * (CELL_H + LABEL_H + GAP) };
        x += t.width + GAP;
        return c;
      });
    });
    // A 256-colour palette keeps a sheet of sixteen frames near a megabyte instead of three.
    const file = join(outDir, `${id}${copy === "long" ? "-long" : ""}.png`);
    await sharp({ create: { width, height, channels: 4, background: "#ffffff" } }).composite(composites).png({ palette: true, quality: 90, effort: 10 }).toFile(file);
    console.log(file);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
