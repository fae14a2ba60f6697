// The video formats a request may ask for (aspect_ratio), checked the same way for create, estimate and preview.
import { errors } from "../kernel";
import { ASPECTS, type Aspect } from "../templates";

export const DEFAULT_ASPECT: Aspect = "9:16";

/** The format asked for (9:16 when none), or 422 naming aspect_ratio and the formats there are. */
export function aspectOf(value: unknown): Aspect {
  if (value === undefined) return DEFAULT_ASPECT;
  if (typeof value === "string" && (ASPECTS as readonly string[]).includes(value)) return value as Aspect;
  throw errors.invalidField("aspect_ratio", `must be one of ${ASPECTS.join(", ")}`);
}
