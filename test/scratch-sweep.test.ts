// Scratch folders under the data dir that an instance killed mid-render left behind are removed at the next start,
// but only once older than any render may run: an instance sharing the data dir may still be using younger ones.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sweepScratch } from "../src/videos/inputs";
import type { VideoDeps } from "../src/videos";
import { tempDir } from "./helpers";

test("removes scratch folders older than the limit and keeps younger ones and the .keep file", async () => {
  const dataDir = tempDir();
  const scratch = join(dataDir, "tmp");
  const now = Date.now();
  for (const [name, ageMs] of [["render-dead-abc", 3 * 3600_000], ["render-live-def", 60_000]] as const) {
    mkdirSync(join(scratch, name), { recursive: true });
    writeFileSync(join(scratch, name, "video.partial.mp4"), "x");
    utimesSync(join(scratch, name), new Date(now - ageMs), new Date(now - ageMs));
  }
  writeFileSync(join(scratch, ".keep"), "");
  const deps = { config: { dataDir } as VideoDeps["config"], clock: { now: () => now } as VideoDeps["clock"] };
  expect(await sweepScratch(deps, 2 * 3600_000)).toBe(1);
  expect(existsSync(join(scratch, "render-dead-abc"))).toBe(false);
  expect(existsSync(join(scratch, "render-live-def", "video.partial.mp4"))).toBe(true);
  expect(existsSync(join(scratch, ".keep"))).toBe(true);
  expect(await sweepScratch({ ...deps, config: { dataDir: join(dataDir, "none") } as VideoDeps["config"] }, 0)).toBe(0);
});
