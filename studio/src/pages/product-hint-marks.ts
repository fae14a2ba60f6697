// The marks a person puts on a product's photo, the dekupe retry hint they make, and which photo they were put on
// (no DOM: tests run it as is).
export type Mark = { x: number; y: number; keep: boolean };
export type Hint = { point?: { x: number; y: number }; exclude?: { x: number; y: number }[] };

/** The marks as the API's hint: the (last) product mark as its point, the latest 20 leave-out marks to exclude. */
export function hintOf(marks: Mark[]): Hint | undefined {
  const keep = marks.filter((m) => m.keep);
  const exclude = marks.filter((m) => !m.keep).slice(-20).map(({ x, y }) => ({ x, y }));
  if (keep.length === 0 && exclude.length === 0) return undefined;
  const hint: Hint = {};
  if (keep.length > 0) hint.point = { x: keep[keep.length - 1]!.x, y: keep[keep.length - 1]!.y };
  if (exclude.length > 0) hint.exclude = exclude;
  return hint;
}

/**
 * Which photo marks were put on: its address without the query. Every new image of a product is stored under a new
 * key, so the path changes with it; a presigned S3 link's query changes on each load, so it is left out.
 */
export function photoVersion(url: string): string {
  // Plain text work, not new URL(): a relative address would need a made-up base, a host the build must not name.
  return url.replace(/[?#].*$/s, "");
}
