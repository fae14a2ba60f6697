// Cut-out edges against composites with known alpha (test/fixtures/composites): the measures themselves, edge
// decontamination on the true matte, and the real ISNet plugin on the whole set (IoU, boundary F, thin parts, fringe).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fringe, frameOf, loadComposites, meanScores, placeCutout, scoreEdges, thinParts, type Composite, type EdgeScores } from "../bench/matte-metrics";
import { createIsnetRemoval, installModel, type IsnetRemoval } from "../plugins/background-removal-isnet";
import { decontaminate } from "../plugins/background-removal-isnet/edges";
import { tempDir } from "./helpers";

const SLOW = 600_000;
let composites: Composite[];

/** The composite's own pixels with `alpha` as matte: a cut-out that keeps the photo's colours, as before decontamination. */
function rgbaOf(c: Composite, alpha: Uint8Array): Uint8Array {
  const rgba = new Uint8Array(c.width * c.height * 4);
  for (let i = 0; i < c.width * c.height; i++) {
    for (let k = 0; k < 3; k++) rgba[i * 4 + k] = c.rgb[i * 3 + k];
    rgba[i * 4 + 3] = alpha[i];
  }
  return rgba;
}

beforeAll(async () => {
  composites = await loadComposites();
});

describe("edge measures", () => {
  test("the true matte and colour score perfectly; the composite's own colour at the edge shows a fringe", async () => {
    const c = composites.find((x) => x.file === "plush-teal.jpg")!;
    const truth = await frameOf(rgbaOf(c, c.alpha), c.width, c.height);
    truth.rgb = c.fg;
    const s = scoreEdges(c, truth);
    expect(s.iou).toBe(1);
    expect(s.boundaryF).toBe(1);
    expect(s.fringe).toBe(0);
    // Teal behind a pink ball's soft edge: the mixed pixels are far from the ball's colour.
    expect(fringe(c, c.alpha, c.rgb)).toBeGreaterThan(20);
  });

  test("thin parts are the stems and straps: a mask without them keeps its IoU but has a thin-part recall of 0", async () => {
    const c = composites.find((x) => x.file === "plant-blue.jpg")!;
    const thin = thinParts(c.alpha, c.width, c.height);
    expect(thin.reduce((a, b) => a + b, 0)).toBeGreaterThan(1000);
    // The pot has no thin parts: none of them lies in its rows' middle.
    expect(thin[650 * c.width + 320]).toBe(0);
    const shaved = new Uint8Array(c.alpha);
    for (let i = 0; i < shaved.length; i++) if (thin[i]) shaved[i] = 0;
    const s = scoreEdges(c, await frameOf(rgbaOf(c, shaved), c.width, c.height));
    expect(s.thinRecall).toBe(0);
    expect(s.iou).toBeGreaterThan(0.9);
  });
});

describe("edge decontamination", () => {
  test("on the true matte it takes a quarter or more of the old background out of every composite's edge", async () => {
    for (const c of composites) {
      const rgba = rgbaOf(c, c.alpha);
      decontaminate(rgba, c.width, c.height);
      const frame = await frameOf(rgba, c.width, c.height);
      const raw = fringe(c, c.alpha, c.rgb);
      const cleaned = fringe(c, frame.alpha, frame.rgb);
      expect({ file: c.file, better: cleaned < 0.8 * raw }).toEqual({ file: c.file, better: true });
    }
  });

  test("alpha stays as it is, and so does the colour of opaque pixels more than 2 px inside the edge", () => {
    const c = composites.find((x) => x.file === "mug-red.jpg")!;
    const { width: w, height: h } = c;
    const rgba = rgbaOf(c, c.alpha);
    const before = rgba.slice();
    decontaminate(rgba, w, h);
    let changedInside = 0, changedEdge = 0;
    for (let y = 2; y < h - 2; y++) {
      for (let x = 2; x < w - 2; x++) {
        const i = y * w + x;
        expect(rgba[i * 4 + 3]).toBe(before[i * 4 + 3]);
        let inside = true;
        for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (c.alpha[i + dy * w + dx] !== 255) inside = false;
        const changed = rgba[i * 4] !== before[i * 4] || rgba[i * 4 + 1] !== before[i * 4 + 1] || rgba[i * 4 + 2] !== before[i * 4 + 2];
        if (changed && inside) changedInside++;
        if (changed && !inside) changedEdge++;
      }
    }
    expect(changedInside).toBe(0);
    expect(changedEdge).toBeGreaterThan(500);
  });
});

// The model on the whole set takes minutes of CPU and touches no database: the PostgreSQL + S3 pass would only repeat
// it (as with test/template-matrix.test.ts), so it runs in the SQLite pass alone.
const modelSuite = process.env.VITRIN_TEST_DATABASE === "postgres" ? describe.skip : describe;

modelSuite("ISNet on the composites", () => {
  let root: string;
  let plugin: IsnetRemoval;
  const scores: EdgeScores[] = [];
  const fringeBefore: number[] = [];

  beforeAll(async () => {
    root = tempDir("vitrin-edges-");
    const modelDir = join(root, "models", "isnet");
    await installModel(modelDir);
    plugin = createIsnetRemoval({ modelDir, threads: 2, idleMs: 60_000 });
    for (const c of composites) {
      const cut = await plugin.remove({ image: c.bytes, attempt: 1 });
      const frame = await placeCutout(cut.png, cut.sourceBox!, c.width, c.height);
      scores.push(scoreEdges(c, frame));
      // The same matte over the photo's own colours: the cut-out as it was before decontamination.
      fringeBefore.push(fringe(c, frame.alpha, c.rgb));
    }
  }, SLOW);

  afterAll(async () => {
    await plugin?.close?.();
    rmSync(root, { recursive: true, force: true });
  });

  test("mean IoU at alpha 0.5 is at least 0.93 and the boundary F-score (3 px) at least 0.9", () => {
    const mean = meanScores(scores);
    expect(mean.iou).toBeGreaterThanOrEqual(0.93);
    expect(mean.boundaryF).toBeGreaterThanOrEqual(0.9);
  });

  test("thin parts survive: on average 93 % of the stems', straps' and poles' pixels are kept", () => {
    expect(meanScores(scores).thinRecall).toBeGreaterThanOrEqual(0.93);
  });

  test("decontaminated edges show less of the old background than the photo's own colours under the same matte, on every composite", () => {
    const mean = meanScores(scores).fringe;
    const meanBefore = fringeBefore.reduce((a, b) => a + b, 0) / fringeBefore.length;
    expect(mean).toBeLessThan(0.75 * meanBefore);
    for (let i = 0; i < scores.length; i++) expect({ file: composites[i].file, fringe: scores[i].fringe <= fringeBefore[i] }).toEqual({ file: composites[i].file, fringe: true });
  });
});
