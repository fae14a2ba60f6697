// Why a cut-out attempt failed: a code beside the English message, so programs can branch on it and the Studio can say
// it in the page's language. The codes are part of the API (docs/api.md); the messages may change.
import { EmptyMatteError } from "./dekupe-result";

/**
 * - image_missing: the uploaded photo is no longer in storage.
 * - no_subject: the plugin found nothing to cut out (or nothing under the hint); a hint or another photo may help.
 * - empty_matte: the plugin's mask came out with no visible pixel.
 * - removal_failed: the plugin failed for another reason (its message says which).
 * - image_changing: the photo was replaced again and again while it was being cut out.
 * - did_not_finish: the job ran out of time or tries (the instance stopped, a run hung).
 */
export const DEKUPE_ERROR_CODES = ["image_missing", "no_subject", "empty_matte", "removal_failed", "image_changing", "did_not_finish"] as const;
export type DekupeErrorCode = (typeof DEKUPE_ERROR_CODES)[number];

export type DekupeFailure = { code: DekupeErrorCode; message: string };

export const imageMissing: DekupeFailure = { code: "image_missing", message: "The original image is missing from storage." };
export const imageChanging: DekupeFailure = { code: "image_changing", message: "The image kept changing while it was being cleaned." };

/** A dead job's failure: the engine's reason (timed out, the instance went away) after the code's sentence. */
export const didNotFinish = (reason: string): DekupeFailure => ({ code: "did_not_finish", message: `Background removal did not finish: ${reason}` });

/**
 * The failure for an error thrown by the plugin or by the check of its cut-out. The plugin kit's NoSubjectError is
 * known by its `code`, so a plugin built against another copy of the kit is read the same way.
 */
export function failureOf(e: unknown): DekupeFailure {
  const said = (e as { message?: unknown } | null)?.message;
  const message = `Background removal failed: ${typeof said === "string" ? said : String(e)}`;
  if (e instanceof EmptyMatteError) return { code: "empty_matte", message };
  if ((e as { code?: unknown } | null)?.code === "no_subject") return { code: "no_subject", message };
  return { code: "removal_failed", message };
}
