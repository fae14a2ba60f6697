// The plugins built into vitrin; the registry picks one per slot from config.
import { isEmbeddedPath, PluginRegistry, userTmpDir } from "../src/plugins";
import storageLocal from "./storage-local";
import storageS3 from "./storage-s3";
import backgroundRemovalNone from "./background-removal-none";
import backgroundRemovalIsnet from "./background-removal-isnet";
import rendererFfmpeg, { FONT_FILES, fontCopyPath } from "./renderer-ffmpeg";
import paymentManual from "./payment-manual";
import paymentStripe from "./payment-stripe";

export function builtinPlugins(): PluginRegistry {
  return new PluginRegistry().add(storageLocal).add(storageS3).add(backgroundRemovalNone).add(backgroundRemovalIsnet).add(rendererFfmpeg).add(paymentManual).add(paymentStripe);
}

/**
 * Files the built-in plugins copy out of a compiled binary on first use, where they copy them: the renderer's fonts.
 * The binary's unpack child copies them first (the shape of src/native's CopiedOut: a plugin imports only the kit).
 */
export function copiedOutFiles(): { from: string; to: string }[] {
  const embedded = FONT_FILES.filter(isEmbeddedPath);
  if (embedded.length === 0) return [];
  try {
    userTmpDir("vitrin-fonts");
  } catch {
    // Not this user's own folder: nothing is copied into it (the renderer says why at its first render).
    return [];
  }
  return embedded.map((from) => ({ from, to: fontCopyPath(from) }));
}
