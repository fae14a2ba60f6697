// bench:render — every template at full size beside a bare ffmpeg encode of as many frames with the same encoder
// settings (same run, so machine load hits both), plus a strip of frames per template under docs/frames/.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createFfmpegRenderer, encoderArgs, samplePrompt, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { loadTemplates, renderSize } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = opt("only")?.split(",");
const language = opt("lang") ?? "en";
const threads = Number(opt("threads") ?? 0);
const runs = Math.max(1, Number(opt("runs") ?? 3));
const writeFrames = !args.includes("--no-frames");
const framesDir = resolve(import.meta.dir, "../docs/frames");

/** CPU seconds used by finished child processes (ffmpeg), from /proc: Linux keeps them per parent. */
function childCpu(): number {
  try {
    const fields = require("node:fs").readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

/** Wall seconds and CPU seconds (this process plus its children) of a run. */
async function time<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const c0 = process.cpuUsage();
  const k0 = childCpu();
  const t0 = performance.now();
  const r = await fn();
  const wall = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(c0);
  return [r, wall, (own.user + own.system) / 1e6 + (childCpu() - k0)];
}

async function bareEncode(width: number, height: number, fps: number, frames: number, out: string): Promise<void> {
  const proc = Bun.spawn(
    ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i", `color=c=0x336699:s=${width}x${height}:r=${fps}`,
      "-frames:v", String(frames), ...encoderArgs(threads), out],
    { stdout: "ignore", stderr: "pipe" },
  );
  if ((await proc.exited) !== 0) throw new Error(`bare encode failed: ${await new Response(proc.stderr).text()}`);
}

/** Four frames of a video side by side, each at most 360 px on its long side. */
async function strip(video: string, duration: number, width: number, height: number, out: string): Promise<void> {
  const times = [0.12, 0.35, 0.6, 0.92].map((f) => (duration * f).toFixed(2));
  const box = 360;
  const w = Math.round((width * box) / Math.max(width, height) / 2) * 2;
  const h = Math.round((height * box) / Math.max(width, height) / 2) * 2;
  const inputs = times.flatMap((t) => ["-ss", t, "-i", video]);
  const graph = `${times.map((_, i) => `[${i}:v]scale=${w}:${h}:flags=lanczos,pad=${w + 8}:${h}:0:0:white[f${i}]`).join(";")};${times.map((_, i) => `[f${i}]`).join("")}hstack=inputs=${times.length}[o]`;
  const proc = Bun.spawn(
    ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...inputs, "-filter_complex", graph, "-map", "[o]", "-frames:v", "1", "-compression_level", "9", out],
    { stdout: "ignore", stderr: "pipe" },
  );
  if ((await proc.exited) !== 0) throw new Error(`frame strip failed: ${await new Response(proc.stderr).text()}`);
}

const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
const renderer = createFfmpegRenderer({ templates: registry, threads });
const ready = await renderer.ready!();
console.log(`renderer: ${ready.detail}; language ${language}; x264 threads ${threads || "auto"}`);
console.log(`best of ${runs} runs each, bare encode and template alternating; cpu = seconds of CPU (all processes)`);
console.log("template          aspect  size       video s  wall s  realtime  bare s  ratio  cpu  bare cpu  cpu ratio  target");
const failures: string[] = [];
for (const tpl of registry.list()) {
  if (only && !only.includes(tpl.info.id)) continue;
  const dir = mkdtempSync(join(tmpdir(), "vitrin-bench-render-"));
  try {
    const product = await writeSampleProduct(join(dir, "product"), language);
    const { width, height } = renderSize(tpl.info, 1);
    const frames = Math.round(tpl.info.duration * tpl.info.fps);
    let best = { wall: Infinity, cpu: Infinity, bare: Infinity, bareCpu: Infinity };
    let video = "";
    let seconds = 0;
    for (let run = 0; run < runs; run++) {
      const [, bare, bareCpu] = await time(() => bareEncode(width, height, tpl.info.fps, frames, join(dir, "bare.mp4")));
      const work = join(dir, `run-${run}`);
      const [result, wall, cpu] = await time(() =>
        renderer.render({
          workDir: work, templateId: tpl.info.id, product, prompt: samplePrompt(language), language, scale: 1,
          signal: new AbortController().signal, onProgress: () => {},
        }),
      );
      video = result.videoPath;
      seconds = result.durationSeconds;
      best = { wall: Math.min(best.wall, wall), cpu: Math.min(best.cpu, cpu), bare: Math.min(best.bare, bare), bareCpu: Math.min(best.bareCpu, bareCpu) };
    }
    const realtime = seconds / best.wall;
    const ratio = best.wall / best.bare;
    const check = tpl.info.aspect === "9:16" ? realtime >= 2.5 && ratio <= 1.6 : ratio <= 1.6;
    if (!check) failures.push(tpl.info.id);
    console.log(
      `${tpl.info.id.padEnd(18)}${tpl.info.aspect.padEnd(8)}${`${width}x${height}`.padEnd(11)}${seconds.toFixed(1).padStart(7)}${best.wall.toFixed(2).padStart(8)}${`${realtime.toFixed(2)}x`.padStart(10)}${best.bare.toFixed(2).padStart(8)}${ratio.toFixed(2).padStart(7)}${best.cpu.toFixed(2).padStart(6)}${best.bareCpu.toFixed(2).padStart(10)}${(best.cpu / best.bareCpu).toFixed(2).padStart(11)}  ${check ? "ok" : "MISSED"}`,
    );
    if (writeFrames) await strip(video, seconds, width, height, join(framesDir, `${tpl.info.id}.png`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(failures.length ? `missed targets (9:16 ≥ 2.5x realtime, all ≤ 1.6x the bare encode): ${failures.join(", ")}` : "all targets met");
if (writeFrames) console.log(`frame strips in ${framesDir}`);
