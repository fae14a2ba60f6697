// The background-removal kit run against every background-removal plugin: none, isnet (the real model; the kit makes
// one instance, so it loads once) and the example folder plugin background-removal-colorkey.
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { createNoneRemoval } from "../../plugins/background-removal-none";
import { createIsnetRemoval, installModel } from "../../plugins/background-removal-isnet";
import { backgroundRemovalConformance } from "./background-removal";
import { examplePlugin } from "./example-plugins";

backgroundRemovalConformance("none", async () => createNoneRemoval());

backgroundRemovalConformance(
  "isnet",
  async () => {
    const modelDir = join(mkdtempSync(join(tmpdir(), "vitrin-isnet-kit-")), "isnet");
    await installModel(modelDir);
    return createIsnetRemoval({ modelDir, threads: 2, idleMs: 60_000 });
  },
  { variesByAttempt: true, detectsSubjects: true },
);

backgroundRemovalConformance("example folder plugin background-removal-colorkey", () => examplePlugin("background-removal", "colorkey"), {
  variesByAttempt: true,
  detectsSubjects: true,
});
