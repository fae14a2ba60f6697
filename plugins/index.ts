// The plugins built into vitrin; the registry picks one per slot from config.
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { PluginRegistry } from "../src/plugins";
import type { CopiedOut } from "../src/native";
import { FONT_FILES } from "./renderer-ffmpeg/fonts";
import storageLocal from "./storage-local";
import storageS3 from "./storage-s3";
import backgroundRemovalNone from "./background-removal-none";
import backgroundRemovalIsnet from "./background-removal-isnet";
import rendererFfmpeg from "./renderer-ffmpeg";
import paymentManual from "./payment-manual";
import paymentStripe from "./payment-stripe";

export function builtinPlugins(): PluginRegistry {
  return new PluginRegistry().add(storageLocal).add(storageS3).add(backgroundRemovalNone).add(backgroundRemovalIsnet).add(rendererFfmpeg).add(paymentManual).add(paymentStripe);
}

/**
 * Files the built-in plugins copy out of a compiled binary on first use, where they copy them: the renderer's fonts
 * (renderer-ffmpeg/fonts.ts's materialize names the copies the same way). The binary's unpack child copies them first.
 */
export function copiedOutFiles(): CopiedOut[] {
  return FONT_FILES.map((from) => ({ from, to: join(tmpdir(), "vitrin-fonts", basename(from)) }));
}
