// Child process for test/renderer.test.ts: starts a long ffmpeg encode into <dir> through runFfmpeg, says "started"
// once frames come out, and waits to be SIGKILLed, so the parent can see whether the encode dies with it.
//
//   bun test/support/ffmpeg-child.ts <dir>
import { join } from "node:path";
import { resolveTool, runFfmpeg } from "../../plugins/renderer-ffmpeg/ffmpeg";

const dir = process.argv[2];
const ffmpeg = dir ? resolveTool("ffmpeg") : null;
if (!dir || !ffmpeg) {
  console.error("usage: ffmpeg-child.ts <dir> (with ffmpeg on PATH)");
  process.exit(2);
}
let said = false;
await runFfmpeg(
  ffmpeg,
  ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "600", "-c:v", "libx264", "-preset", "ultrafast", "-y", join(dir, "long.mp4"), "-progress", "pipe:1"],
  {
    frames: 15_000,
    timeoutMs: 600_000,
    onProgress: () => {
      if (said) return;
      said = true;
      console.log("started");
    },
  },
);
