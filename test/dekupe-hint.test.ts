// Hinted cut-outs with the real ISNet model on a composite photo of two objects whose alphas are known: without a hint
// the model takes the salient cat disc along, with a point, a box or an excluded point the cut-out is the other object.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createIsnetRemoval, installModel, type IsnetRemoval } from "../plugins/background-removal-isnet";
import type { CutoutHint } from "../src/plugins";
import { tempDir } from "./helpers";
import { faintObject, iou, placedAlpha, twoObjects, type HintScene } from "./support/hint-photos";

const SLOW = 180_000;
let root: string;
let plugin: IsnetRemoval;
let scene: HintScene;

beforeAll(async () => {
  root = tempDir("vitrin-dekupe-hint-");
  const modelDir = join(root, "isnet");
  await installModel(modelDir);
  plugin = createIsnetRemoval({ modelDir, threads: 2, idleMs: 60_000 });
  scene = await twoObjects();
}, SLOW);

afterAll(async () => {
  await plugin?.close?.();
  rmSync(root, { recursive: true, force: true });
});

/** IoU of the cut-out (put back in the photo) with each object's own alpha. */
async function scores(hint?: CutoutHint) {
  const cut = await plugin.remove({ image: scene.photo, attempt: 1, ...(hint ? { hint } : {}) });
  const alpha = await placedAlpha(cut, scene.width, scene.height);
  return { a: iou(alpha, await scene.alphaOf("a")), b: iou(alpha, await scene.alphaOf("b")), cut };
}

const centre = (s: { x: number; y: number; width: number; height: number }) => ({ x: Math.round(s.x + s.width / 2), y: Math.round(s.y + s.height / 2) });

test("without a hint the model's cut-out is not the block on the right (it takes the cat disc along)", async () => {
  const { b } = await scores();
  expect(b).toBeLessThan(0.5);
}, SLOW);

test("a point on the block cuts out the block alone (IoU >= 0.8), and says how in its method", async () => {
  const { a, b, cut } = await scores({ point: centre(scene.b) });
  expect(b).toBeGreaterThanOrEqual(0.8);
  expect(a).toBeLessThan(0.05);
  expect(cut.variant).toContain("hint: point");
  expect(cut.variant).toContain("GrabCut");
  expect(cut.timings?.grabcut_ms).toBeGreaterThanOrEqual(0);
}, SLOW);

test("a box round the block cuts out the block alone (IoU >= 0.8)", async () => {
  const { x, y, width, height } = scene.b;
  const { a, b } = await scores({ box: { x: x - 15, y: y - 15, width: width + 30, height: height + 30 } });
  expect(b).toBeGreaterThanOrEqual(0.8);
  expect(a).toBeLessThan(0.05);
}, SLOW);

test("excluding a point on the cat disc leaves the block (IoU >= 0.8)", async () => {
  const { a, b } = await scores({ exclude: [centre(scene.a)] });
  expect(b).toBeGreaterThanOrEqual(0.8);
  expect(a).toBeLessThan(0.05);
}, SLOW);

test("a point on the cat disc cuts out the disc alone (IoU >= 0.8)", async () => {
  const { a, b } = await scores({ point: centre(scene.a) });
  expect(a).toBeGreaterThanOrEqual(0.8);
  expect(b).toBeLessThan(0.05);
}, SLOW);

test("a hinted cut-out of the photo the model saw last reuses its matte: no model run, the same cut-out", async () => {
  const hint = { point: centre(scene.b) };
  const fresh = createIsnetRemoval({ modelDir: join(root, "isnet"), threads: 2, idleMs: 60_000 });
  try {
    const first = await fresh.remove({ image: scene.photo, attempt: 1, hint });
    expect(first.timings?.inference_ms).toBeGreaterThan(0);
    const again = await fresh.remove({ image: scene.photo, attempt: 2, hint });
    expect(again.timings).toMatchObject({ load_ms: 0, inference_ms: 0 });
    // GrabCut seeds its colour models with k-means from OpenCV's running random state, so the two may differ by a few pixels.
    const [x, y] = await Promise.all([placedAlpha(first, scene.width, scene.height), placedAlpha(again, scene.width, scene.height)]);
    expect(iou(x, y)).toBeGreaterThan(0.98);
  } finally {
    await fresh.close?.();
  }
}, SLOW);

test("a plain card the model only half takes: a point on it gives the card alone (IoU >= 0.8)", async () => {
  const faint = await faintObject();
  const alone = await placedAlpha(await plugin.remove({ image: faint.photo, attempt: 1 }), faint.width, faint.height);
  expect(iou(alone, await faint.alphaOf("b"))).toBeLessThan(0.5);
  const cut = await plugin.remove({ image: faint.photo, attempt: 2, hint: { point: centre(faint.b) } });
  const alpha = await placedAlpha(cut, faint.width, faint.height);
  expect(iou(alpha, await faint.alphaOf("b"))).toBeGreaterThanOrEqual(0.8);
  expect(iou(alpha, await faint.alphaOf("a"))).toBeLessThan(0.05);
}, SLOW);

test("a card the model misses entirely: a box round it, or a point on it, gets it (IoU >= 0.8)", async () => {
  const ghost = await faintObject([199, 199, 185]);
  const alone = await placedAlpha(await plugin.remove({ image: ghost.photo, attempt: 1 }), ghost.width, ghost.height);
  expect(iou(alone, await ghost.alphaOf("b"))).toBeLessThan(0.05);
  const { x, y, width, height } = ghost.b;
  for (const hint of [{ box: { x: x - 15, y: y - 15, width: width + 30, height: height + 30 } }, { point: centre(ghost.b) }]) {
    const alpha = await placedAlpha(await plugin.remove({ image: ghost.photo, attempt: 2, hint }), ghost.width, ghost.height);
    expect(iou(alpha, await ghost.alphaOf("b"))).toBeGreaterThanOrEqual(0.8);
    expect(iou(alpha, await ghost.alphaOf("a"))).toBeLessThan(0.05);
  }
}, SLOW);
