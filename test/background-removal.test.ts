// Background-removal conformance: one suite run against every background-removal plugin.
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { join } from "node:path";
import { createNoneRemoval } from "../plugins/background-removal-none";
import { createIsnetRemoval, installModel } from "../plugins/background-removal-isnet";
import type { BackgroundRemovalPlugin } from "../src/plugins";
import { productPhoto, tempDir } from "./helpers";

const implementations: { name: string; make: () => Promise<BackgroundRemovalPlugin> }[] = [
  { name: "none", make: async () => createNoneRemoval() },
  {
    name: "isnet",
    make: async () => {
      const modelDir = join(tempDir(), "isnet");
      await installModel(modelDir);
      return createIsnetRemoval({ modelDir, threads: 2, idleMs: 60_000 });
    },
  },
];

for (const impl of implementations) {
  describe(`background removal conformance: ${impl.name}`, () => {
    test("gives a PNG with alpha, at most 1024 px, a same-size mask and a box inside it", async () => {
      const plugin = await impl.make();
      await plugin.init?.();
      const cut = await plugin.remove({ image: await productPhoto("jpeg", 2000, 1500), attempt: 1 });
      const meta = await sharp(cut.png).metadata();
      expect(meta.format).toBe("png");
      expect(meta.hasAlpha).toBe(true);
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(1024);
      expect([cut.width, cut.height]).toEqual([meta.width!, meta.height!]);
      const mask = await sharp(cut.mask).metadata();
      expect([mask.width, mask.height]).toEqual([meta.width, meta.height]);
      expect(cut.box.x).toBeGreaterThanOrEqual(0);
      expect(cut.box.y).toBeGreaterThanOrEqual(0);
      expect(cut.box.x + cut.box.width).toBeLessThanOrEqual(cut.width);
      expect(cut.box.y + cut.box.height).toBeLessThanOrEqual(cut.height);
      expect(cut.variant.length).toBeGreaterThan(0);
      await plugin.close?.();
    });

    test("honours EXIF orientation", async () => {
      const plugin = await impl.make();
      // A wide ellipse, not a disc: a plugin that crops to the product must still come out taller than wide.
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="100%" height="100%" fill="#e8e4dc"/><ellipse cx="200" cy="100" rx="120" ry="60" fill="#c0392b"/></svg>`;
      const sideways = await sharp(Buffer.from(svg)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
      const cut = await plugin.remove({ image: new Uint8Array(sideways), attempt: 1 });
      expect(cut.height).toBeGreaterThan(cut.width);
    });

    test("stops when its signal is aborted", async () => {
      const plugin = await impl.make();
      const ctrl = new AbortController();
      ctrl.abort();
      await expect(plugin.remove({ image: await productPhoto(), attempt: 1, signal: ctrl.signal })).rejects.toThrow();
    });
  });
}
