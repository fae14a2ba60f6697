// Background removal that removes nothing: the image, upright and capped at 1024 px, as a PNG with an opaque mask.
// For setups without the model; products still get a "ready" dekupe so videos never wait on a missing model.
import sharp from "../../src/plugins/sharp";
import { definePlugin, type BackgroundRemovalPlugin } from "../../src/plugins";

export const MAX_CUTOUT_SIDE = 1024;

export function createNoneRemoval(): BackgroundRemovalPlugin {
  return {
    slot: "background-removal",
    name: "none",
    async remove({ image, signal }) {
      signal?.throwIfAborted();
      const { data, info } = await sharp(image)
        .autoOrient()
        .resize(MAX_CUTOUT_SIDE, MAX_CUTOUT_SIDE, { fit: "inside", withoutEnlargement: true })
        .ensureAlpha()
        .png()
        .toBuffer({ resolveWithObject: true });
      const mask = await sharp({
        create: { width: info.width, height: info.height, channels: 3, background: { r: 255, g: 255, b: 255 } },
      })
        .toColourspace("b-w")
        .png()
        .toBuffer();
      return {
        png: new Uint8Array(data),
        mask: new Uint8Array(mask),
        width: info.width,
        height: info.height,
        box: { x: 0, y: 0, width: info.width, height: info.height },
        variant: "pass-through (no model)",
      };
    },
  };
}

export default definePlugin({
  slot: "background-removal",
  name: "none",
  description: "Pass-through: keeps the image as it is (upright, at most 1024 px, PNG).",
  create: () => createNoneRemoval(),
});
