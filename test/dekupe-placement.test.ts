// Where a cut-out sits in its photo (source_box), the crop choice ("subject" or "none"), and the warnings read from
// the mask; through the API with the pass-through plugin, and finishCutout on masks drawn with sharp.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { EmptyMatteError, finishCutout } from "../src/products/dekupe-result";
import { fetchStored, productPhoto, startImageHost, startService, type ImageHost, type TestService } from "./helpers";

let host: ImageHost;
let t: TestService;
let acct: { id: string; token: string };

beforeAll(async () => {
  host = startImageHost({ "/mug.jpg": { body: await productPhoto("jpeg", 1600, 1200), type: "image/jpeg" } });
});
afterAll(() => host.close());
beforeEach(async () => {
  t = await startService();
  acct = await t.newAccount();
});
afterEach(async () => {
  await t.close();
});

async function product(body: Record<string, unknown> = {}) {
  const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), ...body } });
  expect(p.status).toBe(201);
  await t.runJobs();
  return p.body.id as string;
}

async function previewSize(url: string) {
  const res = await fetchStored(t, url);
  const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
  return { width: meta.width, height: meta.height, alpha: meta.hasAlpha };
}

describe("dekupe placement over the API", () => {
  test("a cut-out of the whole photo says so: source_box is the photo, crop subject, edge and frame warnings", async () => {
    const id = await product();
    const res = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(res.body).toMatchObject({ status: "ready", crop: "subject", source_box: { x: 0, y: 0, width: 1600, height: 1200 } });
    expect(res.body.warnings.sort()).toEqual(["frame_filling", "subject_touches_edge"]);
    const got = await t.json("GET", `/v1/products/${id}`, { token: acct.token });
    expect(got.body.dekupe.source_box).toEqual({ x: 0, y: 0, width: 1600, height: 1200 });
  });

  test('crop "none" on create makes a transparent PNG of the photo\'s own size', async () => {
    const id = await product({ dekupe_crop: "none" });
    const res = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(res.body).toMatchObject({ status: "ready", crop: "none", box: { x: 0, y: 0, width: 1600, height: 1200 } });
    expect(await previewSize(res.body.preview_url)).toEqual({ width: 1600, height: 1200, alpha: true });
  });

  test('a retry takes crop "none"; the default crop stays a capped cut-out', async () => {
    const id = await product();
    const first = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(await previewSize(first.body.preview_url)).toEqual({ width: 1024, height: 768, alpha: true });
    const retry = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token, body: { crop: "none" } });
    expect(retry.status).toBe(202);
    await t.runJobs();
    const res = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(res.body.crop).toBe("none");
    expect(await previewSize(res.body.preview_url)).toEqual({ width: 1600, height: 1200, alpha: true });
  });

  test("an unknown crop or field is a 422 on create and retry", async () => {
    const bad = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe_crop: "tight" } });
    expect(bad.status).toBe(422);
    const id = await product();
    for (const body of [{ crop: "tight" }, { crop: "none", hint: 1 }]) {
      const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token, body });
      expect(res.status).toBe(422);
    }
  });
});

/** A plugin-style cut-out whose mask is `w`×`h` greyscale pixels from `alphaAt`. */
async function cutout(w: number, h: number, alphaAt: (x: number, y: number) => number, box = { x: 0, y: 0, width: w, height: h }) {
  const alpha = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) alpha[y * w + x] = alphaAt(x, y);
  const raw = { raw: { width: w, height: h, channels: 1 as const } };
  const mask = new Uint8Array(await sharp(alpha, raw).png().toBuffer());
  const png = new Uint8Array(await sharp(alpha, raw).joinChannel(Buffer.from(alpha), raw).png().toBuffer());
  return { png, mask, alpha, width: w, height: h, box, variant: "test" };
}

/** The same cut-out as a plugin that hands over only the PNGs gives it (the host decodes the mask). */
const pngsOnly = <T extends { alpha?: Uint8Array }>(cut: T): T => ({ ...cut, alpha: undefined });

const photo = async (w: number, h: number) =>
  new Uint8Array(await sharp({ create: { width: w, height: h, channels: 3, background: "#ddeeff" } }).jpeg().toBuffer());

describe("finishCutout warnings", () => {
  test("a small subject in the middle of a big photo warns small_subject only", async () => {
    const cut = await cutout(200, 200, (x, y) => (x > 20 && x < 180 && y > 20 && y < 180 ? 255 : 0), { x: 21, y: 21, width: 159, height: 159 });
    const out = await finishCutout(await photo(2000, 2000), { ...cut, sourceBox: { x: 900, y: 900, width: 200, height: 200 } }, "subject", 2000, 2000);
    expect(out.warnings).toEqual(["small_subject"]);
    expect(out.sourceBox).toEqual({ x: 900, y: 900, width: 200, height: 200 });
  });

  test("a mask on the crop's edge warns subject_touches_edge only where the crop meets the photo's border", async () => {
    const cut = await cutout(600, 600, (x) => (x < 300 ? 255 : 0), { x: 0, y: 0, width: 300, height: 600 });
    const atBorder = await finishCutout(await photo(1000, 1000), { ...cut, sourceBox: { x: 0, y: 200, width: 600, height: 600 } }, "subject", 1000, 1000);
    expect(atBorder.warnings).toContain("subject_touches_edge");
    const inside = await finishCutout(await photo(1000, 1000), { ...cut, sourceBox: { x: 200, y: 200, width: 600, height: 600 } }, "subject", 1000, 1000);
    expect(inside.warnings).not.toContain("subject_touches_edge");
  });

  test("a mostly half-transparent matte warns soft_matte", async () => {
    const cut = await cutout(600, 600, (x, y) => (x > 100 && x < 500 && y > 100 && y < 500 ? (x < 300 ? 255 : 120) : 0), { x: 101, y: 101, width: 399, height: 399 });
    const out = await finishCutout(await photo(1200, 1200), { ...cut, sourceBox: { x: 0, y: 0, width: 1200, height: 1200 } }, "subject", 1200, 1200);
    expect(out.warnings).toEqual(["soft_matte"]);
  });

  test("an empty matte is an error, not a blank cut-out", async () => {
    const cut = await cutout(300, 300, () => 5);
    await expect(finishCutout(await photo(300, 300), cut, "subject", 300, 300)).rejects.toBeInstanceOf(EmptyMatteError);
    await expect(finishCutout(await photo(300, 300), pngsOnly(cut), "subject", 300, 300)).rejects.toBeInstanceOf(EmptyMatteError);
  });

  test("the mask's pixels handed over by the plugin give the same warnings as the decoded mask", async () => {
    const cases = [
      [await cutout(200, 200, (x, y) => (x > 20 && x < 180 && y > 20 && y < 180 ? 255 : 0)), { x: 900, y: 900, width: 200, height: 200 }, 2000],
      [await cutout(600, 600, (x) => (x < 300 ? 255 : 0)), { x: 0, y: 200, width: 600, height: 600 }, 1000],
      [await cutout(600, 600, (x, y) => (x > 100 && x < 500 && y > 100 && y < 500 ? (x < 300 ? 255 : 120) : 0)), { x: 0, y: 0, width: 1200, height: 1200 }, 1200],
    ] as const;
    for (const [cut, sourceBox, side] of cases) {
      const image = await photo(side, side);
      const given = await finishCutout(image, { ...cut, sourceBox }, "subject", side, side);
      const decoded = await finishCutout(image, { ...pngsOnly(cut), sourceBox }, "subject", side, side);
      expect(given.warnings.length).toBeGreaterThan(0);
      expect(given.warnings).toEqual(decoded.warnings);
    }
  });

  test("a photo-sized cut-out (crop none) carries its own mask pixels, not the cropped one's", async () => {
    const cut = await cutout(200, 200, (x, y) => (x > 20 && x < 180 && y > 20 && y < 180 ? 255 : 0), { x: 21, y: 21, width: 159, height: 159 });
    const out = await finishCutout(await photo(800, 600), { ...cut, sourceBox: { x: 300, y: 200, width: 200, height: 200 } }, "none", 800, 600);
    expect([out.cut.width, out.cut.height]).toEqual([800, 600]);
    const { data } = await sharp(out.cut.mask).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    expect(out.cut.alpha?.length).toBe(800 * 600);
    expect(Buffer.from(out.cut.alpha!).equals(data)).toBe(true);
  });
});
