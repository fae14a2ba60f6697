// "See before you pay": the poster frame of a video request with the caller's own product, copy, brand and format,
// checked as create checks it, as a PNG at half size. Free: no ledger row, no video row, no job, nothing stored.
import { errors } from "../kernel";
import { withStaged } from "./inputs";
import { prepare } from "./requests";
import type { NewVideo, VideoDeps } from "./types";

/** Half the format's size: enough to judge a layout, and quick (one frame, a quarter of the pixels). */
export const VIDEO_PREVIEW_SCALE = 0.5;

export async function previewVideo(deps: VideoDeps, accountId: string, input: NewVideo): Promise<Uint8Array> {
  const { renderer } = deps;
  if (!renderer.preview) throw errors.noPreviews(renderer.name);
  const { template, prompt, language, aspect, product } = await prepare(deps, accountId, input);
  const templateId = template.info.id;
  return withStaged(deps, { accountId, templateId, product, prompt, language, aspect }, "preview", (s) =>
    renderer.preview!({ templateId, language, aspect, scale: VIDEO_PREVIEW_SCALE, product: s.product, prompt: s.prompt, logoPath: s.logoPath, font: s.font }),
  );
}
