// The cut-out PNG carries no colour where nothing shows: transparent pixels away from the product are cleared (the
// photo's old background there only made the file bigger), while the ring next to it keeps a colour for renderers that
// scale without premultiplying alpha. Runs makeCutout on a made-up photo and probability map (no model needed).
import { expect, test } from "bun:test";
import sharp from "sharp";
import { makeCutout, type Probability, type Upright } from "../plugins/background-removal-isnet/cutout";

test("transparent pixels that touch no visible one have no colour; the ring around the product keeps one", async () => {
  const w = 400, h = 300;
  // A busy backdrop (stripes and noise) with an orange disc in the middle.
  const rgb = Buffer.alloc(w * h * 3);
  let seed = 11;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const inDisc = (x - 200) ** 2 + (y - 150) ** 2 < 80 ** 2;
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      rgb[i] = inDisc ? 240 : 40 + ((x >> 3) % 2) * 120 + (seed & 31);
      rgb[i + 1] = inDisc ? 140 : 90 + (seed >> 5 & 63);
      rgb[i + 2] = inDisc ? 30 : 200 - ((y >> 4) % 2) * 100;
    }
  }
  const src: Upright = { rgb, width: w, height: h };
  // The model's map on a 200×150 grid: the disc, with a soft edge.
  const mw = 200, mh = 150;
  const data = new Float32Array(mw * mh);
  for (let y = 0; y < mh; y++) for (let x = 0; x < mw; x++) data[y * mw + x] = Math.min(1, Math.max(0, (41 - Math.hypot(x - 100, y - 75)) / 3));
  const prob: Probability = { data, width: mw, height: mh, guide: async () => new Uint8Array(mw * mh * 3) };
  // Attempt 2: a tight crop, so some transparent pixels are far from the disc (corners) and some touch it.
  const cut = await makeCutout(src, prob, 2);
  const { data: px, info } = await sharp(cut.png).raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(4);
  const at = (x: number, y: number) => (y * info.width + x) * 4;
  let hidden = 0, ring = 0, ringColoured = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const q = at(x, y);
      if (px[q + 3] !== 0) continue;
      const touches = [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]].some(([a, b]) => a! >= 0 && b! >= 0 && a! < info.width && b! < info.height && px[at(a!, b!) + 3] !== 0);
      if (touches) {
        ring++;
        if (px[q] + px[q + 1] + px[q + 2] > 0) ringColoured++;
      } else {
        hidden++;
        expect([px[q], px[q + 1], px[q + 2]]).toEqual([0, 0, 0]);
      }
    }
  }
  expect(hidden).toBeGreaterThan(1000);
  expect(ring).toBeGreaterThan(0);
  // The ring took the product's colour (orange), not black.
  expect(ringColoured).toBe(ring);
});
