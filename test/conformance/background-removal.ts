// The background-removal slot's conformance kit: the bun:test cases every background-removal plugin must pass (a PNG
// cut-out with alpha, at most 1024 px, a same-size greyscale mask the alpha follows, a tight box, EXIF orientation, each
// input format, attempts, hints, abort, undecodable input, and "nothing to cut out" for plugins that detect subjects). One plugin instance serves the whole suite, as in the service,
// so a slow model loads once. Run it from a test file: `backgroundRemovalConformance("mine", async () => plugin)`.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BackgroundRemovalPlugin, Cutout } from "../../src/plugins";
import { channelOf, decodePng, encodePng, productPhotoPng } from "./images";

export type BackgroundRemovalConformanceOptions = {
  /** Whether a retry (attempt 2) does something else than attempt 1, so its `variant` must differ. */
  variesByAttempt?: boolean;
  /**
   * Whether the plugin tells a subject from the rest: then a photo of one plain colour must be refused with an error
   * whose `code` is "no_subject" (the kit's NoSubjectError), not cut out whole. A pass-through plugin says false.
   */
  detectsSubjects?: boolean;
  /** Time limit of one test (a model may take seconds a cut-out on a slow machine). */
  timeoutMs?: number;
};

/** The longest side a cut-out may have (the contract's limit). */
export const MAX_CUTOUT_SIDE = 1024;

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "fixtures", name)));

/** Checks everything the contract says of a cut-out; returns its decoded alpha for further checks. */
export function expectValidCutout(cut: Cutout): { width: number; height: number } {
  const png = decodePng(cut.png);
  expect(png.hasAlpha).toBe(true);
  expect(Math.max(png.width, png.height)).toBeLessThanOrEqual(MAX_CUTOUT_SIDE);
  expect([cut.width, cut.height]).toEqual([png.width, png.height]);
  const maskPng = decodePng(cut.mask);
  expect(maskPng.greyscale).toBe(true);
  expect([maskPng.width, maskPng.height]).toEqual([png.width, png.height]);
  const mask = channelOf(maskPng, "grey");
  // The raw mask a plugin may hand over beside the PNG is that PNG's pixels, byte for byte.
  if (cut.alpha !== undefined) expect(Buffer.from(cut.alpha).equals(Buffer.from(mask))).toBe(true);
  const alpha = channelOf(png, "alpha");
  // The PNG's transparency is the mask: where the mask says background, the cut-out is see-through.
  let difference = 0;
  for (let i = 0; i < mask.length; i++) difference += Math.abs(mask[i]! - alpha[i]!);
  expect(difference / mask.length).toBeLessThanOrEqual(4);
  // The box is the product's (mask ≥ 128) bounding box, within a pixel or two, and inside the picture.
  let [x0, y0, x1, y1] = [png.width, png.height, -1, -1];
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      if (mask[y * png.width + x]! < 128) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  const { box } = cut;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.width).toBeGreaterThan(0);
  expect(box.height).toBeGreaterThan(0);
  expect(box.x + box.width).toBeLessThanOrEqual(cut.width);
  expect(box.y + box.height).toBeLessThanOrEqual(cut.height);
  if (x1 >= 0) {
    for (const [got, want] of [[box.x, x0], [box.y, y0], [box.x + box.width - 1, x1], [box.y + box.height - 1, y1]] as const) {
      expect(Math.abs(got - want)).toBeLessThanOrEqual(2);
    }
  }
  expect(cut.variant.trim().length).toBeGreaterThan(0);
  for (const ms of Object.values(cut.timings ?? {})) {
    expect(Number.isInteger(ms)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(0);
  }
  return { width: png.width, height: png.height };
}

/** Declares the background-removal contract's tests for the plugin `make` returns (created once, init and close run here). */
export function backgroundRemovalConformance(name: string, make: () => Promise<BackgroundRemovalPlugin>, options: BackgroundRemovalConformanceOptions = {}): void {
  const timeout = options.timeoutMs ?? 120_000;
  let started: Promise<BackgroundRemovalPlugin> | null = null;
  const plugin = () =>
    (started ??= (async () => {
      const p = await make();
      await p.init?.();
      return p;
    })());
  // The first attempt on the large photo, shared by the tests that need one.
  let firstCut: Promise<Cutout> | null = null;
  const photo = fixture("photo-2000x1500.jpg");
  const cutPhoto = () => (firstCut ??= plugin().then((p) => p.remove({ image: photo, attempt: 1 })));

  describe(`background removal conformance: ${name}`, () => {
    afterAll(async () => {
      if (started) await (await started).close?.();
    });

    test("declares the background-removal slot and is ready", async () => {
      const p = await plugin();
      expect(p.slot).toBe("background-removal");
      expect(p.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect((await p.ready?.()) ?? { ok: true }).toMatchObject({ ok: true });
    }, timeout);

    test("a 2000×1500 JPEG gives a PNG with alpha, at most 1024 px, a same-size mask it follows and a tight box", async () => {
      const size = expectValidCutout(await cutPhoto());
      // Scaled down, never up, and the photo's landscape shape kept unless the plugin crops to the product.
      expect(Math.max(size.width, size.height)).toBeGreaterThan(100);
    }, timeout);

    test("honours EXIF orientation", async () => {
      // A wide ellipse stored sideways: a plugin that crops to the product must still come out taller than wide.
      const cut = await (await plugin()).remove({ image: fixture("sideways-exif6.jpg"), attempt: 1 });
      expectValidCutout(cut);
      expect(cut.height).toBeGreaterThan(cut.width);
    }, timeout);

    test("takes PNG and WebP as well as JPEG", async () => {
      const p = await plugin();
      expectValidCutout(await p.remove({ image: productPhotoPng(), attempt: 1 }));
      expectValidCutout(await p.remove({ image: fixture("photo-640x480.webp"), attempt: 1 }));
    }, timeout);

    test(options.variesByAttempt ? "a retry (attempt 2) gives a valid cut-out made another way" : "a retry (attempt 2) gives a valid cut-out", async () => {
      const first = await cutPhoto();
      const second = await (await plugin()).remove({ image: photo, attempt: 2 });
      expectValidCutout(second);
      if (options.variesByAttempt) expect(second.variant).not.toBe(first.variant);
    }, timeout);

    test("a hint (a point, a box, points to leave out) still gives a valid cut-out; a plugin may ignore it", async () => {
      await cutPhoto();
      const p = await plugin();
      expectValidCutout(await p.remove({ image: photo, attempt: 2, hint: { point: { x: 1000, y: 750 } } }));
      expectValidCutout(await p.remove({ image: photo, attempt: 3, hint: { box: { x: 400, y: 300, width: 1200, height: 900 }, exclude: [{ x: 5, y: 5 }] } }));
    }, timeout);

    test("an already aborted signal rejects, and the plugin works on afterwards", async () => {
      const p = await plugin();
      const ctrl = new AbortController();
      ctrl.abort();
      await expect(p.remove({ image: photo, attempt: 1, signal: ctrl.signal })).rejects.toThrow();
      expectValidCutout(await p.remove({ image: fixture("sideways-exif6.jpg"), attempt: 1, signal: new AbortController().signal }));
    }, timeout);

    if (options.detectsSubjects) {
      test("a photo of one plain colour is refused as no_subject, with a message", async () => {
        const p = await plugin();
        const plain = encodePng(800, 600, 3, new Uint8Array(800 * 600 * 3).map((_, i) => [0xe8, 0xe4, 0xdc][i % 3]));
        const err = await p.remove({ image: plain, attempt: 1 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as { code?: unknown }).code).toBe("no_subject");
        expect((err as Error).message.length).toBeGreaterThan(0);
      }, timeout);
    }

    test("bytes that are no image are a clear error", async () => {
      const p = await plugin();
      const err = await p.remove({ image: new TextEncoder().encode("this is not an image at all"), attempt: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message.length).toBeGreaterThan(0);
    }, timeout);
  });
}
