// A retry's hint (which object to cut out: a point on it or a box round it, and points to leave out), checked against
// the product's photo before the job is queued, so a hint that misses the photo is a 422 naming the field.
import { errors } from "../kernel";
import type { CutoutHint, Point } from "../plugins";

export type DekupeHint = CutoutHint;

/** At most this many points to leave out: a few clicks, not a mask. */
export const MAX_EXCLUDE_POINTS = 20;

function checkPoint(field: string, p: Point, width: number, height: number) {
  if (!(p.x >= 0 && p.x < width)) throw errors.invalidField(`${field}.x`, `must lie inside the photo (0 to ${width - 1})`);
  if (!(p.y >= 0 && p.y < height)) throw errors.invalidField(`${field}.y`, `must lie inside the photo (0 to ${height - 1})`);
}

/** Checks `hint` against the upright `width`×`height` photo it is for; throws a 422 naming the first field that fails. */
export function checkHint(hint: DekupeHint, width: number, height: number): DekupeHint {
  const { point, box, exclude } = hint;
  if (!point && !box && !exclude?.length) throw errors.invalidField("hint", "give a point, a box or exclude points");
  if (point) checkPoint("hint.point", point, width, height);
  if (box) {
    if (!(box.width > 0)) throw errors.invalidField("hint.box.width", "must be positive");
    if (!(box.height > 0)) throw errors.invalidField("hint.box.height", "must be positive");
    checkPoint("hint.box", box, width, height);
    if (box.x + box.width > width) throw errors.invalidField("hint.box.width", `reaches past the photo's right edge (x + width ≤ ${width})`);
    if (box.y + box.height > height) throw errors.invalidField("hint.box.height", `reaches past the photo's bottom edge (y + height ≤ ${height})`);
    if (point && (point.x < box.x || point.x >= box.x + box.width || point.y < box.y || point.y >= box.y + box.height)) {
      throw errors.invalidField("hint.point", "must lie inside hint.box when both are given");
    }
  }
  if (exclude && exclude.length > MAX_EXCLUDE_POINTS) throw errors.invalidField("hint.exclude", `at most ${MAX_EXCLUDE_POINTS} points`);
  exclude?.forEach((e, i) => checkPoint(`hint.exclude.${i}`, e, width, height));
  // Only the known fields go on: the job payload and the attempt record keep exactly this.
  const clean: DekupeHint = {};
  if (point) clean.point = { x: point.x, y: point.y };
  if (box) clean.box = { x: box.x, y: box.y, width: box.width, height: box.height };
  if (exclude?.length) clean.exclude = exclude.map((e) => ({ x: e.x, y: e.y }));
  return clean;
}
