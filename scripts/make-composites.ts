// Regenerates test/fixtures/composites/: product-like RGBA drawings with known alpha (thin handles, stems and straps,
// soft edges) composited over varied backgrounds, the reference set for cut-out edge quality (bun run scripts/make-composites.ts).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

const OUT = join(import.meta.dir, "..", "test", "fixtures", "composites");
/** Pixels this far outside a drawing get the colour of its nearest edge: the "true foreground" there is defined. */
const COLOUR_REACH = 24;

type Obj = { name: string; width: number; height: number; svg: string; soften?: number };
type Background = { name: string; label: string; make: (w: number, h: number) => Promise<Buffer> };

const svgDoc = (w: number, h: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
const grad = (id: string, a: string, b: string, x2 = 1, y2 = 0) =>
  `<linearGradient id="${id}" x1="0" y1="0" x2="${x2}" y2="${y2}"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient>`;

/** The drawings: each has at least one part a few pixels wide, since thin parts are what a matte cleanup eats first. */
const OBJECTS: Obj[] = [
  {
    name: "mug",
    width: 720,
    height: 720,
    svg: `<defs>${grad("g", "#f4f1ea", "#b9b4aa")}</defs>
      <path d="M470 300 C 590 300 590 470 470 470" fill="none" stroke="#d8d3c9" stroke-width="16"/>
      <rect x="190" y="230" width="290" height="320" rx="26" fill="url(#g)"/>
      <ellipse cx="335" cy="232" rx="145" ry="16" fill="#e9e5dc"/>`,
  },
  {
    name: "goblet",
    width: 600,
    height: 800,
    svg: `<defs>${grad("g", "#f2d479", "#a8821f")}</defs>
      <path d="M170 150 L430 150 C 430 330 370 390 300 395 C 230 390 170 330 170 150 Z" fill="url(#g)"/>
      <rect x="296" y="392" width="8" height="230" fill="#b8922e"/>
      <ellipse cx="300" cy="630" rx="105" ry="18" fill="url(#g)"/>`,
  },
  {
    name: "handbag",
    width: 760,
    height: 640,
    svg: `<defs>${grad("g", "#a0582a", "#5e3215", 0, 1)}</defs>
      <path d="M250 300 C 250 90 510 90 510 300" fill="none" stroke="#4a2810" stroke-width="7"/>
      <path d="M190 290 L570 290 L610 560 L150 560 Z" fill="url(#g)"/>
      <rect x="355" y="330" width="50" height="28" rx="6" fill="#d9b45a"/>`,
  },
  {
    name: "plant",
    width: 640,
    height: 800,
    svg: `<defs>${grad("g", "#d2693c", "#8f3d1c")}${grad("l", "#5fbf4a", "#2f7d25", 0, 1)}</defs>
      <path d="M320 560 C 310 420 250 330 200 230" fill="none" stroke="#3f7a2a" stroke-width="4"/>
      <path d="M320 560 C 330 400 350 300 330 160" fill="none" stroke="#3f7a2a" stroke-width="3"/>
      <path d="M320 560 C 350 460 420 380 470 300" fill="none" stroke="#3f7a2a" stroke-width="4"/>
      <ellipse cx="195" cy="215" rx="44" ry="20" transform="rotate(-35 195 215)" fill="url(#l)"/>
      <ellipse cx="332" cy="145" rx="20" ry="42" fill="url(#l)"/>
      <ellipse cx="478" cy="288" rx="46" ry="19" transform="rotate(-30 478 288)" fill="url(#l)"/>
      <path d="M225 550 L415 550 L390 700 L250 700 Z" fill="url(#g)"/>`,
  },
  {
    name: "pan",
    width: 800,
    height: 600,
    svg: `<defs>${grad("g", "#4a4a50", "#18181c", 1, 1)}</defs>
      <rect x="450" y="286" width="300" height="20" rx="10" fill="#2a2a2e"/>
      <circle cx="290" cy="296" r="180" fill="#6b6b72"/>
      <circle cx="290" cy="296" r="164" fill="url(#g)"/>`,
  },
  {
    name: "headphones",
    width: 720,
    height: 720,
    svg: `<defs>${grad("g", "#fafafa", "#b0b4bb", 1, 1)}</defs>
      <path d="M200 420 C 200 150 520 150 520 420" fill="none" stroke="#c9ccd1" stroke-width="14"/>
      <rect x="160" y="390" width="90" height="150" rx="36" fill="url(#g)"/>
      <rect x="470" y="390" width="90" height="150" rx="36" fill="url(#g)"/>`,
  },
  {
    // A plush ball: its edge is a soft ramp several pixels wide, like fur or a slightly defocused edge.
    name: "plush",
    width: 720,
    height: 720,
    soften: 3,
    svg: `<defs><radialGradient id="g" cx="0.4" cy="0.35" r="0.7"><stop offset="0" stop-color="#ffe3f0"/><stop offset="1" stop-color="#e0719f"/></radialGradient></defs>
      <circle cx="360" cy="370" r="210" fill="url(#g)"/>`,
  },
  {
    name: "lamp",
    width: 600,
    height: 800,
    soften: 1.2,
    svg: `<defs>${grad("g", "#fff6d6", "#e3c988")}</defs>
      <rect x="297" y="300" width="6" height="380" fill="#3a3a3a"/>
      <path d="M190 300 L410 300 L360 130 L240 130 Z" fill="url(#g)"/>
      <ellipse cx="300" cy="690" rx="90" ry="20" fill="#2d2d2d"/>`,
  },
];

/** Deterministic noise, so the fixtures regenerate identically. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rawRgb = (svg: string) => sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
const solid = (name: string, colour: string): Background => ({
  name,
  label: `solid ${colour}`,
  make: (w, h) => rawRgb(svgDoc(w, h, `<rect width="${w}" height="${h}" fill="${colour}"/>`)),
});
const gradient = (name: string, a: string, b: string): Background => ({
  name,
  label: `gradient ${a} → ${b}`,
  make: (w, h) => rawRgb(svgDoc(w, h, `<defs>${grad("b", a, b, 1, 1)}</defs><rect width="${w}" height="${h}" fill="url(#b)"/>`)),
});
/** Blotches of saturated colour with a fine grain: a busy, textured backdrop. */
const texture = (name: string, seed: number): Background => ({
  name,
  label: "textured (colour blotches and grain)",
  async make(w, h) {
    const r = rng(seed);
    const cells = Buffer.alloc(12 * 12 * 3);
    for (let i = 0; i < cells.length; i++) cells[i] = Math.round(40 + r() * 200);
    const base = await sharp(cells, { raw: { width: 12, height: 12, channels: 3 } }).resize(w, h, { kernel: "cubic" }).raw().toBuffer();
    for (let i = 0; i < base.length; i++) base[i] = Math.max(0, Math.min(255, base[i] + Math.round((r() - 0.5) * 16)));
    return base;
  },
});
const stripes = (name: string, a: string, b: string): Background => ({
  name,
  label: `diagonal stripes ${a} / ${b}`,
  make: (w, h) =>
    rawRgb(
      svgDoc(
        w,
        h,
        `<defs><pattern id="p" width="36" height="36" patternUnits="userSpaceOnUse" patternTransform="rotate(35)">` +
          `<rect width="36" height="36" fill="${a}"/><rect width="18" height="36" fill="${b}"/></pattern></defs>` +
          `<rect width="${w}" height="${h}" fill="url(#p)"/>`,
      ),
    ),
});

/** Which backgrounds each drawing is shown on: saturated colours the product's edge would pick up, and busy ones. */
const PAIRS: Record<string, Background[]> = {
  mug: [solid("red", "#d81e1e"), gradient("blue-yellow", "#1c3fd8", "#f2d81c")],
  goblet: [solid("green", "#12b83a"), texture("texture", 7)],
  handbag: [solid("magenta", "#d21ec8"), stripes("stripes", "#1ec8d2", "#f0f0f0")],
  plant: [solid("blue", "#1e4ad8"), gradient("yellow-red", "#f5e11e", "#e0281e")],
  pan: [solid("yellow", "#f2d21a"), texture("texture", 11)],
  headphones: [solid("orange", "#f07818"), gradient("green-purple", "#1ec864", "#781ec8")],
  plush: [solid("teal", "#14a0a0"), texture("texture", 23)],
  lamp: [solid("blue", "#2440c8"), stripes("stripes", "#c82424", "#242424")],
};

/** The drawing's colour, extended outwards from its opaque pixels, and its alpha (softened for the soft-edged ones). */
async function drawObject(o: Obj): Promise<{ rgba: Buffer; alpha: Uint8Array }> {
  const { data } = await sharp(Buffer.from(svgDoc(o.width, o.height, o.svg))).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const n = o.width * o.height;
  let alpha = new Uint8Array(n);
  for (let i = 0; i < n; i++) alpha[i] = data[i * 4 + 3];
  if (o.soften) {
    const soft = await sharp(Buffer.from(alpha), { raw: { width: o.width, height: o.height, channels: 1 } }).blur(o.soften).extractChannel(0).raw().toBuffer();
    alpha = new Uint8Array(soft);
  }
  // Known colour: the drawing's nearly opaque pixels (anti-aliased ones carry quantised colour); the rest is grown
  // from them ring by ring, each new pixel the mean of its known neighbours.
  const known = new Uint8Array(n);
  const rgb = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    if (data[i * 4 + 3] < 250) continue;
    known[i] = 1;
    for (let c = 0; c < 3; c++) rgb[i * 3 + c] = data[i * 4 + c];
  }
  for (let ring = 0; ring < COLOUR_REACH + 8; ring++) {
    const next = known.slice();
    for (let y = 0; y < o.height; y++) {
      for (let x = 0; x < o.width; x++) {
        const i = y * o.width + x;
        if (known[i]) continue;
        let count = 0, r = 0, g = 0, b = 0;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= o.width || yy >= o.height) continue;
            const j = yy * o.width + xx;
            if (!known[j]) continue;
            count++, (r += rgb[j * 3]), (g += rgb[j * 3 + 1]), (b += rgb[j * 3 + 2]);
          }
        }
        if (count === 0) continue;
        next[i] = 1;
        rgb[i * 3] = r / count, rgb[i * 3 + 1] = g / count, rgb[i * 3 + 2] = b / count;
      }
    }
    known.set(next);
  }
  const rgba = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    // Far from the drawing the colour is never looked at; a flat grey keeps the PNG small.
    for (let c = 0; c < 3; c++) rgba[i * 4 + c] = known[i] ? Math.round(rgb[i * 3 + c]) : 128;
    rgba[i * 4 + 3] = alpha[i];
  }
  return { rgba, alpha };
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, "objects"), { recursive: true });
const manifest: { file: string; object: string; background: string; width: number; height: number }[] = [];
for (const o of OBJECTS) {
  const { rgba } = await drawObject(o);
  await sharp(rgba, { raw: { width: o.width, height: o.height, channels: 4 } }).png({ compressionLevel: 9 }).toFile(join(OUT, "objects", `${o.name}.png`));
  for (const bg of PAIRS[o.name]) {
    const back = await bg.make(o.width, o.height);
    const out = Buffer.alloc(o.width * o.height * 3);
    for (let i = 0, n = o.width * o.height; i < n; i++) {
      const a = rgba[i * 4 + 3] / 255;
      for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgba[i * 4 + c] * a + back[i * 3 + c] * (1 - a));
    }
    const file = `${o.name}-${bg.name}.jpg`;
    await sharp(out, { raw: { width: o.width, height: o.height, channels: 3 } }).jpeg({ quality: 90 }).toFile(join(OUT, file));
    manifest.push({ file, object: `objects/${o.name}.png`, background: bg.label, width: o.width, height: o.height });
  }
}
writeFileSync(join(OUT, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`${manifest.length} composites written to ${OUT}`);
