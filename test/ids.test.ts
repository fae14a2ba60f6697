// Time-ordered ids: their text order is the order they were made in, within a millisecond and when the clock steps back.
import { expect, test } from "bun:test";
import { newSortableId } from "../src/jobs/ids";

test("sortable ids sort as they were made: within a millisecond, across milliseconds, and when the clock steps back", () => {
  // Other tests in this process made ids before (the sequence is per process), maybe at later times than this.
  const at = Date.UTC(2026, 10, 23, 12, 0, 0);
  const made = [
    ...Array.from({ length: 100 }, () => newSortableId("att", at)),
    newSortableId("att", at + 1),
    newSortableId("att", at - 5_000), // the clock stepped back: still after the last one
    newSortableId("att", at + 2),
  ];
  expect([...made].sort()).toEqual(made);
  expect(new Set(made).size).toBe(made.length);
  for (const id of made) expect(id).toMatch(/^att_[0-9A-Za-z]{20}$/);
});
