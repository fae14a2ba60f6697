// An example background-removal plugin loaded from a folder: for products shot on a plain backdrop (a white sweep, a
// green screen), it keys out the colour of the photo's top-left corner with ffmpeg's colorkey filter. No model, no
// native module: just the ffmpeg vitrin already needs. Copy the folder next to the vitrin binary
// (plugins/background-removal-colorkey/) and start with VITRIN_BACKGROUND_REMOVAL=colorkey.
//
// Settings (declared below, so vitrin checks them at start and lists them; a folder plugin's are named VITRIN_PLUGIN_<NAME>_<SETTING>):
//   VITRIN_PLUGIN_COLORKEY_FFMPEG  optional: the ffmpeg executable, a name on PATH or a path (default "ffmpeg")
//
// Each retry keys more loosely (see VARIANTS). Only types are imported from vitrin (erased at run time), because a
// compiled binary has no node_modules to import from. Check it with test/conformance/background-removal.ts.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PluginHost } from "../../../src/plugins/host";
import type { BackgroundRemovalPlugin, Box, Cutout } from "../../../src/plugins";

const MAX_SIDE = 1024;
/** How far from the backdrop colour a pixel may be and still count as backdrop, by attempt. */
const VARIANTS = [0.12, 0.2, 0.3];

/** ffmpeg filters that turn a photo stored with EXIF orientation 2…8 upright (ffmpeg 5 does not apply it to images). */
const UPRIGHT: Record<number, string> = { 2: "hflip", 3: "hflip,vflip", 4: "vflip", 5: "transpose=0", 6: "transpose=1", 7: "transpose=3", 8: "transpose=2" };

/** The EXIF orientation (1…8) of a JPEG, 1 when it has none or is no JPEG. */
export function exifOrientation(bytes: Uint8Array): number {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 2; at + 4 <= bytes.length && bytes[at] === 0xff; at += 2 + view.getUint16(at + 2)) {
    const marker = bytes[at + 1]!;
    if (marker === 0xda) break; // the image data starts: no EXIF before it
    // APP1 holding "Exif\0\0" and then a TIFF header (II little-endian or MM big-endian).
    if (marker !== 0xe1 || String.fromCharCode(...bytes.subarray(at + 4, at + 8)) !== "Exif") continue;
    const tiff = at + 10;
    const little = bytes[tiff] === 0x49;
    const u16 = (o: number) => view.getUint16(tiff + o, little);
    const ifd = view.getUint32(tiff + 4, little);
    for (let i = 0; i < u16(ifd); i++) {
      const entry = ifd + 2 + i * 12;
      if (u16(entry) === 0x0112) return u16(entry + 8);
    }
  }
  return 1;
}

/** The bounding box of the pixels at least half opaque, or null when there are none. */
function boxOf(alpha: Uint8Array, width: number, height: number): Box | null {
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (alpha[y * width + x]! < 128) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

async function run(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<Uint8Array> {
  signal?.throwIfAborted();
  const proc = Bun.spawn([ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
  signal?.throwIfAborted();
  if (code !== 0) throw new Error(`the image could not be decoded: ${err.trim().split("\n").at(-1) || `ffmpeg exited with ${code}`}`);
  return out;
}

export default function colorkeyRemoval(host: PluginHost) {
  return host.definePlugin({
    slot: "background-removal",
    name: "colorkey",
    description: "Example plugin: keys out a plain backdrop's colour with ffmpeg (no model).",
    settings: {
      ffmpeg: {
        env: "VITRIN_PLUGIN_COLORKEY_FFMPEG",
        default: "ffmpeg",
        doc: "Example colour-key background-removal plugin: the ffmpeg executable, a name on PATH or a path.",
        parse: (raw: string) => raw.trim() || "ffmpeg",
      },
    },
    create(ctx): BackgroundRemovalPlugin {
      const ffmpegSetting = ctx.settings.ffmpeg;
      const ffmpeg = () => {
        const found = ffmpegSetting.includes("/") ? ffmpegSetting : Bun.which(ffmpegSetting);
        if (!found) throw new Error(`ffmpeg was not found (${ffmpegSetting}); install it or set VITRIN_PLUGIN_COLORKEY_FFMPEG`);
        return found;
      };

      return {
        slot: "background-removal",
        name: "colorkey",
        async ready() {
          try {
            return { ok: true, detail: `keying with ${ffmpeg()}` };
          } catch (e) {
            return { ok: false, detail: (e as Error).message };
          }
        },
        async remove({ image, attempt, signal }): Promise<Cutout> {
          signal?.throwIfAborted();
          const similarity = VARIANTS[Math.min(Math.max(1, attempt), VARIANTS.length) - 1]!;
          const upright = [UPRIGHT[exifOrientation(image)], `scale=w='min(${MAX_SIDE},iw)':h='min(${MAX_SIDE},ih)':force_original_aspect_ratio=decrease`, "format=rgba"]
            .filter(Boolean)
            .join(",");
          const dir = await mkdtemp(join(tmpdir(), "vitrin-colorkey-"));
          try {
            const input = join(dir, "input");
            await Bun.write(input, image);
            const source = ["-noautorotate", "-i", input];
            // The backdrop's colour: the top-left pixel of the upright picture.
            const corner = await run(ffmpeg(), [...source, "-vf", `${upright},crop=1:1:0:0,format=rgb24`, "-frames:v", "1", "-f", "rawvideo", "pipe:1"], signal);
            if (corner.length !== 3) throw new Error("the image could not be decoded: no pixels");
            const colour = [...corner].map((c) => c.toString(16).padStart(2, "0")).join("");
            const [png, mask] = [join(dir, "cutout.png"), join(dir, "mask.png")];
            const graph = `[0:v]${upright},colorkey=0x${colour}:${similarity}:0.05,split=3[c][m][r];[m]alphaextract,format=gray[mo];[r]alphaextract,format=gray[ro]`;
            const alpha = await run(
              ffmpeg(),
              [...source, "-filter_complex", graph, "-map", "[c]", "-frames:v", "1", png, "-map", "[mo]", "-frames:v", "1", mask, "-map", "[ro]", "-frames:v", "1", "-f", "rawvideo", "pipe:1"],
              signal,
            );
            const pngBytes = new Uint8Array(await readFile(png));
            // Width and height from the PNG's IHDR chunk (bytes 16…23, big-endian).
            const header = new DataView(pngBytes.buffer, pngBytes.byteOffset, 24);
            const [width, height] = [header.getUint32(16), header.getUint32(20)];
            const box = boxOf(alpha, width, height);
            // The attempt fails as "nothing to cut out" (error_code no_subject), not as a fault of the plugin.
            if (!box) throw new host.NoSubjectError(`no product found: the whole picture matches the backdrop colour #${colour}`);
            return { png: pngBytes, mask: new Uint8Array(await readFile(mask)), width, height, box, variant: `backdrop #${colour} keyed out, similarity ${similarity}` };
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      };
    },
  });
}
