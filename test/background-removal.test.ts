// Background-removal conformance: one suite run against every background-removal plugin.
import { describe, expect, test } from "bun:test";
import sharp from "sharp";
import { createNoneRemoval } from "../plugins/background-removal-none";
import type { BackgroundRemovalPlugin } from "../src/plugins";
import { productPhoto } from "./helpers";

const implementations: { name: string; make: () => Promise<BackgroundRemovalPlugin> }[] = [
  { name: "none", make: async () => createNoneRemoval() },
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
      const sideways = await sharp(await productPhoto("jpeg", 400, 200)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
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
