// The check after a render reads the MP4's own boxes (plugins/renderer-ffmpeg/mp4.ts): it agrees with ffprobe on what
// ffmpeg wrote, and refuses a file cut short, one without video and one that is no MP4.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mp4Facts } from "../plugins/renderer-ffmpeg/mp4";

let dir: string;

/** A short clip made by ffmpeg: a test pattern of the given size with a tone, H.264 and AAC like a render. */
function encode(name: string, o: { width: number; height: number; seconds: number; faststart: boolean; video?: boolean }): string {
  const file = join(dir, name);
  const video = o.video === false ? [] : ["-f", "lavfi", "-i", `testsrc2=size=${o.width}x${o.height}:rate=30:duration=${o.seconds}`];
  const args = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...video, "-f", "lavfi", "-i", `sine=frequency=440:duration=${o.seconds}`];
  const codecs = [...(o.video === false ? [] : ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]), "-c:a", "aac"];
  const out = Bun.spawnSync(["ffmpeg", ...args, ...codecs, ...(o.faststart ? ["-movflags", "+faststart"] : []), "-f", "mp4", file]);
  if (out.exitCode !== 0) throw new Error(out.stderr.toString());
  return file;
}

function ffprobe(file: string) {
  const out = Bun.spawnSync(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json", file]);
  const json = JSON.parse(out.stdout.toString()) as { streams: { codec_name: string; width: number; height: number }[]; format: { duration: string } };
  const s = json.streams[0]!;
  return { codec: s.codec_name, width: s.width, height: s.height, duration: Number(json.format.duration) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-mp4-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("codec, size and length agree with ffprobe, with the index in front (+faststart) and at the end", async () => {
  for (const [name, o] of [["front.mp4", { width: 320, height: 568, seconds: 1.5, faststart: true }], ["end.mp4", { width: 256, height: 144, seconds: 2.2, faststart: false }]] as const) {
    const file = encode(name, o);
    const facts = await mp4Facts(file);
    const probed = ffprobe(file);
    expect({ ...facts, duration: facts.duration.toFixed(3) }).toEqual({ ...probed, duration: probed.duration.toFixed(3) });
  }
});

test("a file cut short is refused as invalid", async () => {
  const whole = readFileSync(encode("whole.mp4", { width: 320, height: 240, seconds: 1, faststart: true }));
  const cut = join(dir, "cut.mp4");
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.8)));
  await expect(mp4Facts(cut)).rejects.toMatchObject({ reason: "invalid" });
});

test("an MP4 without a video track is refused as invalid", async () => {
  const file = encode("audio.mp4", { width: 0, height: 0, seconds: 1, faststart: true, video: false });
  await expect(mp4Facts(file)).rejects.toMatchObject({ reason: "invalid", message: "the rendered file has no video stream" });
});

test("a file that is no MP4 is refused as invalid", async () => {
  const file = join(dir, "note.mp4");
  writeFileSync(file, "this is not a video at all, only some words in a file");
  await expect(mp4Facts(file)).rejects.toMatchObject({ reason: "invalid" });
});
