// bench:render — every template rendered by vitrin (9:16 with its music by default) beside a bare ffmpeg run of that
// very render's command: the same inputs, filtergraph, audio chain and encoder settings, run directly on layers made
// beforehand. Runs alternate (render, bare, render, bare …) so machine load hits both; the figures are medians of
// per-pair ratios. With --frames DIR it also writes a strip of frames per template there.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createFfmpegRenderer, ffmpegArgs, prepareRender, samplePrompt, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { audioArgs, forgetMeasuredGains, prepareAudio } from "../plugins/renderer-ffmpeg/audio";
import { createMusic } from "../src/music";
import type { Aspect } from "../src/plugins/renderer-kit";
import { loadTemplates } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = opt("only")?.split(",");
const language = opt("lang") ?? "en";
const aspect = (opt("aspect") ?? "9:16") as Aspect;
const musicChoice = opt("music") ?? "auto";
const threads = Number(opt("threads") ?? 0);
const runs = Math.max(1, Number(opt("runs") ?? 5));
// Frames of each video (four side by side) only when asked for, into the folder given: the docs show contact sheets
// (scripts/contact-sheet.ts) instead.
const framesDir = opt("frames") ? resolve(opt("frames")!) : null;
const writeFrames = framesDir !== null;
/** Issue 20: at least 4× realtime, at most 1.3 × the bare run of the same command. */
const TARGET_REALTIME = 4;
const TARGET_RATIO = 1.3;

/** CPU seconds used by finished child processes (ffmpeg), from /proc: Linux keeps them per parent. */
function childCpu(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

type Timed = { wall: number; cpu: number };

/** Wall seconds and CPU seconds (this process plus its finished children) of a run. */
async function time(fn: () => Promise<unknown>): Promise<Timed> {
  const c0 = process.cpuUsage();
  const k0 = childCpu();
  const t0 = performance.now();
  await fn();
  const wall = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(c0);
  return { wall, cpu: (own.user + own.system) / 1e6 + (childCpu() - k0) };
}

/** The render's own ffmpeg command, without the progress pipe vitrin reads (the bare run reports nothing). */
async function bareRun(command: string[]): Promise<void> {
  const bare = command.filter((a, i) => !(a === "-progress" || command[i - 1] === "-progress"));
  const proc = Bun.spawn(["ffmpeg", ...bare], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error(`bare ffmpeg run failed: ${await new Response(proc.stderr).text()}`);
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
const renderer = createFfmpegRenderer({ templates: registry, threads });
const music = createMusic();
const ready = await renderer.ready!();
console.log(`renderer: ${ready.detail}; ${aspect}, language ${language}, music ${musicChoice}; x264 threads ${threads || "auto"}`);
console.log(`${runs} pairs each (vitrin render, then the bare ffmpeg run of its command); medians; ratio = per-pair wall ratio`);
console.log("template          size       video s  wall s  realtime  bare s  ratio  (min–max)  cpu s  bare cpu  cpu ratio  target");
const failures: string[] = [];
for (const tpl of registry.list()) {
  if (only && !only.includes(tpl.info.id)) continue;
  const dir = mkdtempSync(join(tmpdir(), "vitrin-bench-render-"));
  try {
    const product = await writeSampleProduct(join(dir, "product"), language);
    const track = music.choose(musicChoice, tpl.info.id);
    const trackFile = track ? { file: track.path, bpm: track.bpm, seconds: track.duration_seconds } : null;
    const request = { templateId: tpl.info.id, product, prompt: samplePrompt(language), language, aspect, scale: 1, music: trackFile };
    // The bare run's command: the layers made once, untimed, exactly as the render makes them.
    const job = await prepareRender({ definition: tpl.definition, ...request, workDir: join(dir, "bare") });
    const measured = trackFile ? await prepareAudio("ffmpeg", trackFile, { duration: job.duration, workDir: join(dir, "bare"), signal: new AbortController().signal }) : null;
    const command = ffmpegArgs(job, join(dir, "bare", "bare.mp4"), threads, measured ? audioArgs(measured, job.inputs) : null);
    const pairs: { render: Timed; bare: Timed }[] = [];
    let video = "";
    for (let run = 0; run < runs; run++) {
      const work = join(dir, `run-${run}`);
      // Every render starts as the first render of a template in a fresh process does: its music's gain not yet known
      // (a shipped track's template cut is read from music/loudness.json then, anything else measured again).
      forgetMeasuredGains();
      const render = await time(async () => {
        const result = await renderer.render({ ...request, workDir: work, signal: new AbortController().signal, onProgress: () => {} });
        video = result.videoPath;
      });
      const bare = await time(() => bareRun(command));
      pairs.push({ render, bare });
      if (run < runs - 1) rmSync(work, { recursive: true, force: true });
    }
    const ratios = pairs.map((p) => p.render.wall / p.bare.wall);
    const wall = median(pairs.map((p) => p.render.wall));
    const bare = median(pairs.map((p) => p.bare.wall));
    const cpu = median(pairs.map((p) => p.render.cpu));
    const bareCpu = median(pairs.map((p) => p.bare.cpu));
    const ratio = median(ratios);
    const realtime = job.duration / wall;
    const met = realtime >= TARGET_REALTIME && ratio <= TARGET_RATIO;
    if (!met) failures.push(tpl.info.id);
    const spread = `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    console.log(
      `${tpl.info.id.padEnd(18)}${`${job.width}x${job.height}`.padEnd(11)}${job.duration.toFixed(1).padStart(7)}${wall.toFixed(2).padStart(8)}${`${realtime.toFixed(2)}x`.padStart(10)}${bare.toFixed(2).padStart(8)}${ratio.toFixed(2).padStart(7)}  ${spread.padEnd(11)}${cpu.toFixed(2).padStart(6)}${bareCpu.toFixed(2).padStart(10)}${(cpu / bareCpu).toFixed(2).padStart(11)}  ${met ? "ok" : "MISSED"}`,
    );
    if (writeFrames) await strip(video, job.duration, job.width, job.height, join(framesDir!, `${tpl.info.id}.png`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(failures.length ? `missed targets (≥ ${TARGET_REALTIME}x realtime and ≤ ${TARGET_RATIO}x the bare run): ${failures.join(", ")}` : "all targets met");
if (writeFrames) console.log(`frame strips in ${framesDir}`);
