// The ISNet cut-out's connected-component labelling, checked against a plain flood fill written here.
import { describe, expect, test } from "bun:test";
import { components } from "../plugins/background-removal-isnet/components";

/** Reference: 4-connected flood fill, labels in the order a raster scan first meets each component. */
function floodFill(p: Float32Array, w: number, h: number, threshold: number) {
  const labels = new Int32Array(w * h);
  const areas = [0];
  const boxes: number[][] = [[0, 0, 0, 0]];
  for (let start = 0; start < w * h; start++) {
    if (labels[start] !== 0 || p[start] < threshold) continue;
    const id = areas.length;
    const box = [w, h, -1, -1];
    let area = 0;
    const queue = [start];
    labels[start] = id;
    while (queue.length > 0) {
      const i = queue.pop()!;
      const x = i % w;
      const y = Math.floor(i / w);
      area++;
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
      for (const [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]) {
        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
        const j = ny * w + nx;
        if (labels[j] === 0 && p[j] >= threshold) (labels[j] = id), queue.push(j);
      }
    }
    areas.push(area);
    boxes.push(box);
  }
  return { labels, areas, boxes };
}

/** A deterministic pseudo-random map: blobs, thin lines and specks. */
function randomMap(w: number, h: number, seed: number): Float32Array {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const p = new Float32Array(w * h);
  for (let i = 0; i < p.length; i++) p[i] = next() < 0.45 ? 0.9 : 0.1;
  return p;
}

describe("cut-out components", () => {
  test("match a flood fill, labels, areas and boxes, on random maps", () => {
    for (const [w, h, seed] of [[1, 1, 1], [7, 1, 2], [1, 9, 3], [64, 48, 4], [97, 131, 5], [256, 256, 6]]) {
      const p = randomMap(w, h, seed);
      const got = components(p, w, h, 0.5);
      const want = floodFill(p, w, h, 0.5);
      expect(got.areas).toEqual(want.areas);
      expect(got.boxes).toEqual(want.boxes as never);
      expect(Array.from(got.labels)).toEqual(Array.from(want.labels));
    }
  });

  test("a shape whose arms meet only at the bottom is one component", () => {
    // Three arms that a raster scan meets as separate runs: two join on row 2, the third only on the bottom row.
    const w = 5;
    const rows = ["X.X.X", "X.X.X", "XXX.X", "X...X", "XXXXX"];
    const p = new Float32Array(rows.join("").split("").map((c) => (c === "X" ? 1 : 0)));
    const got = components(p, w, rows.length, 0.5);
    expect(got.areas).toEqual([0, 17]);
    expect(got.boxes).toEqual([[0, 0, 0, 0], [0, 0, 4, 4]]);
  });
});
