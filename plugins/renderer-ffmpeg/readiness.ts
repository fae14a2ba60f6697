// Whether ffmpeg and ffprobe are there and fit to render (a libx264 encoder), remembered between polls and, when
// the executables have not changed, between restarts.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ReadyReport } from "../../src/plugins";
import { hasEncoder, resolveTool, toolVersion } from "./ffmpeg";

export type Tools = { ffmpeg: string; ffprobe: string };

function readCheck(file: string, key: string): ReadyReport | null {
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as { key: string; report: ReadyReport };
    return saved.key === key && saved.report?.ok === true ? saved.report : null;
  } catch {
    return null;
  }
}

function writeCheck(file: string, key: string, report: ReadyReport): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, report }));
    renameSync(tmp, file);
  } catch {
    // Only a cache: the next start checks the tools again.
  }
}

/** The executables to run, found now (on PATH or at their paths), or an error naming the setting to fix. */
export function findTools(ffmpegName: string, ffprobeName: string): Tools {
  const ffmpeg = resolveTool(ffmpegName);
  const ffprobe = resolveTool(ffprobeName);
  if (!ffmpeg) throw new Error(`ffmpeg was not found (${ffmpegName}); install it or set VITRIN_FFMPEG_PATH`);
  if (!ffprobe) throw new Error(`ffprobe was not found (${ffprobeName}); install it or set VITRIN_FFPROBE_PATH`);
  return { ffmpeg, ffprobe };
}

async function checkTools(tools: () => Tools, checkCacheFile: string | undefined): Promise<ReadyReport> {
  try {
    const { ffmpeg, ffprobe } = tools();
    const key = [ffmpeg, ffprobe].map((f) => {
      const st = statSync(f);
      return `${f}:${st.size}:${st.mtimeMs}`;
    }).join("|");
    const remembered = checkCacheFile ? readCheck(checkCacheFile, key) : null;
    if (remembered) return remembered;
    const [v, pv, x264] = await Promise.all([toolVersion(ffmpeg), toolVersion(ffprobe), hasEncoder(ffmpeg, "libx264")]);
    const report = x264 ? { ok: true, detail: `ffmpeg ${v} with libx264, ffprobe ${pv}` } : { ok: false, detail: `ffmpeg ${v} has no libx264 encoder` };
    if (report.ok && checkCacheFile) writeCheck(checkCacheFile, key, report);
    return report;
  } catch (e) {
    return { ok: false, detail: (e as Error).message };
  }
}

/**
 * The readiness of the tools: one check at a time, its report reused for 30 s (/readyz may be polled often, and
 * starting ffmpeg three times a poll is not worth it).
 */
export function toolReadiness(tools: () => Tools, checkCacheFile: string | undefined) {
  let readiness: { at: number; report: ReadyReport } | null = null;
  let probing: Promise<ReadyReport> | null = null;
  const check = (): Promise<ReadyReport> =>
    (probing ??= checkTools(tools, checkCacheFile).then((report) => {
      readiness = { at: Date.now(), report };
      probing = null;
      return report;
    }));
  return {
    check,
    ready(): Promise<ReadyReport> {
      if (readiness && Date.now() - readiness.at < 30_000) return Promise.resolve(readiness.report);
      return check();
    },
  };
}
