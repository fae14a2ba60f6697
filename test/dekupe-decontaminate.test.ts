// Edge decontamination keeps its exact output: synthetic cut-outs (soft and noisy edges, bands touching the borders,
// narrow radii 3 to 7) decontaminated, their bytes' SHA-256 pinned to what the implementation before the 2026-11-26
// speed-up produced, so a faster rewrite cannot change a pixel unnoticed.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { decontaminate } from "../plugins/background-removal-isnet/edges";

/** A small linear congruential generator: the same numbers on every run and machine. */
function numbers(seed: number) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** A wavy soft-edged disc with noise in its edge (fur-like), colours varying across the image. */
function blob(w: number, h: number, seed: number): Uint8Array {
  const random = numbers(seed);
  const rgba = new Uint8Array(w * h * 4);
  const cx = w * 0.5, cy = h * 0.55, radius = Math.min(w, h) * 0.35;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const d = Math.hypot(x - cx, (y - cy) * 1.3) - radius + 8 * Math.sin(x / 7) * Math.cos(y / 9);
      const noise = Math.abs(d) < 10 ? (random() - 0.5) * 0.6 : 0;
      const a = Math.max(0, Math.min(1, 0.5 - d / 6 + noise));
      rgba[i] = (x * 3 + y) & 255;
      rgba[i + 1] = 200 * a + random() * 40;
      rgba[i + 2] = d > 0 ? 30 + random() * 20 : 220 - (y & 63);
      rgba[i + 3] = Math.round(a * 255);
    }
  }
  return rgba;
}

/** Random colours, and alpha mostly transparent, opaque or anything, as `mix` says: bands everywhere, at every border. */
function speckled(w: number, h: number, seed: number, mix: (r: number) => number): Uint8Array {
  const random = numbers(seed);
  const rgba = new Uint8Array(w * h * 4);
  for (let i = 0; i < w * h; i++) {
    for (let c = 0; c < 3; c++) rgba[i * 4 + c] = random() * 256;
    rgba[i * 4 + 3] = mix(random());
  }
  return rgba;
}

const cases: { name: string; w: number; h: number; rgba: Uint8Array }[] = [
  { name: "blob 333x517", w: 333, h: 517, rgba: blob(333, 517, 1) },
  { name: "blob 1200x700", w: 1200, h: 700, rgba: blob(1200, 700, 2) },
  { name: "blob 1024x37", w: 1024, h: 37, rgba: blob(1024, 37, 3) },
  { name: "blob 5x1200", w: 5, h: 1200, rgba: blob(5, 1200, 4) },
  { name: "speckled 61x47", w: 61, h: 47, rgba: speckled(61, 47, 5, (r) => (r < 0.4 ? 0 : r < 0.8 ? 255 : r * 255)) },
  { name: "mostly opaque 90x70", w: 90, h: 70, rgba: speckled(90, 70, 6, (r) => (r < 0.9 ? 255 : 0)) },
  { name: "mostly transparent 70x90", w: 70, h: 90, rgba: speckled(70, 90, 7, (r) => (r < 0.95 ? 0 : 255)) },
  { name: "any alpha 1x33", w: 1, h: 33, rgba: speckled(1, 33, 8, (r) => r * 256) },
];

const EXPECTED: Record<string, string> = {
  "any alpha 1x33": "b09ede383063425b",
  "blob 1024x37": "b10ba54f670ba083",
  "blob 1200x700": "4d92912125fbec63",
  "blob 333x517": "0b277826e1cbabd9",
  "blob 5x1200": "4c0f756440e56581",
  "mostly opaque 90x70": "37d1d7df05364fe0",
  "mostly transparent 70x90": "8c701ce43d55bb0b",
  "speckled 61x47": "37a86b37f844b68f",
};

test("decontaminated bytes are those of the implementation they were pinned with", () => {
  const digests: Record<string, string> = {};
  for (const c of cases) {
    const rgba = c.rgba.slice();
    decontaminate(rgba, c.w, c.h);
    digests[c.name] = createHash("sha256").update(rgba).digest("hex").slice(0, 16);
  }
  expect(digests).toEqual(EXPECTED);
});

test("every case has edges to work on: decontamination changes some colours and no alpha", () => {
  for (const c of cases) {
    const rgba = c.rgba.slice();
    decontaminate(rgba, c.w, c.h);
    let colours = 0, alphas = 0;
    for (let i = 0; i < rgba.length; i++) if (rgba[i] !== c.rgba[i]) (i % 4 === 3 ? alphas++ : colours++);
    expect({ name: c.name, changed: colours > 0, alphas }).toEqual({ name: c.name, changed: true, alphas: 0 });
  }
});
