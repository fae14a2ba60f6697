// Running ffmpeg and ffprobe: argument arrays (never a shell), its own process group, progress, timeout and abort, and
// no ffmpeg outliving the instance that started it.
import { existsSync } from "node:fs";

export type RunOptions = {
  /** Total frames the run produces, for turning `frame=` progress lines into percent. */
  frames: number;
  timeoutMs: number;
  /** The limit named in the timeout error (the whole render's, when ffmpeg got what was left of it). */
  timeoutLabelMs?: number;
  signal?: AbortSignal;
  /** Called with 0..99 as frames come out (100 is the caller's to report, after checking the result). */
  onProgress?: (percent: number) => void;
};

export class RenderError extends Error {
  constructor(
    message: string,
    readonly reason: "failed" | "killed" | "timeout" | "aborted" | "invalid",
  ) {
    super(message);
    this.name = reason === "aborted" ? "AbortError" : "RenderError";
  }
}

/** Finds an executable: an absolute or relative path as given, else a name looked up on PATH. */
export function resolveTool(nameOrPath: string): string | null {
  if (nameOrPath.includes("/")) return existsSync(nameOrPath) ? nameOrPath : null;
  return Bun.which(nameOrPath);
}

function killGroup(pid: number): void {
  try {
    // Negative pid: the whole group ffmpeg leads (detached: true makes it a session and group leader).
    process.kill(-pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

// util-linux's setpriv, where there is one: `setpriv --pdeathsig KILL -- ffmpeg …` execs ffmpeg (same pid) with the
// kernel told to SIGKILL it when the thread that started it dies, so an instance that is itself SIGKILLed (or
// OOM-killed) leaves no encode running on for minutes. Linux only; elsewhere, or without setpriv, ffmpeg runs as is.
let deathSignalPrefix: string[] | undefined;
function parentDeathPrefix(): string[] {
  if (deathSignalPrefix === undefined) {
    const setpriv = process.platform === "linux" ? Bun.which("setpriv") : null;
    deathSignalPrefix = setpriv ? [setpriv, "--pdeathsig", "KILL", "--"] : [];
  }
  return deathSignalPrefix;
}

/** Runs ffmpeg with `-progress pipe:1` already among `args`; resolves when it exits 0, throws a RenderError otherwise. */
export async function runFfmpeg(ffmpeg: string, args: string[], o: RunOptions): Promise<void> {
  if (o.signal?.aborted) throw new RenderError("the render was cancelled before ffmpeg started", "aborted");
  const proc = Bun.spawn([...parentDeathPrefix(), ffmpeg, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  let stopped: "timeout" | "aborted" | null = null;
  const stop = (why: "timeout" | "aborted") => {
    if (stopped) return;
    stopped = why;
    killGroup(proc.pid);
  };
  const timer = setTimeout(() => stop("timeout"), Math.max(1, o.timeoutMs));
  const onAbort = () => stop("aborted");
  o.signal?.addEventListener("abort", onAbort, { once: true });

  let last = -1;
  const readProgress = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        const m = /^frame=(\d+)$/.exec(line);
        if (!m || !o.onProgress) continue;
        const pct = Math.min(99, Math.floor((Number(m[1]) / Math.max(1, o.frames)) * 100));
        // Progress only ever goes up, whatever order or repeats ffmpeg reports in.
        if (pct > last) {
          last = pct;
          o.onProgress(pct);
        }
      }
    }
  })();
  const tail: string[] = [];
  const readErrors = (async () => {
    const text = await new Response(proc.stderr).text();
    for (const line of text.split("\n")) if (line.trim()) tail.push(line.trim());
  })();

  const code = await proc.exited;
  clearTimeout(timer);
  o.signal?.removeEventListener("abort", onAbort);
  await Promise.allSettled([readProgress, readErrors]);

  if (stopped === "timeout") {
    throw new RenderError(`render timed out after ${formatSeconds(o.timeoutLabelMs ?? o.timeoutMs)}; ffmpeg was killed`, "timeout");
  }
  if (stopped === "aborted") throw new RenderError("the render was cancelled; ffmpeg was killed", "aborted");
  if (proc.signalCode) throw new RenderError(`ffmpeg was killed (${proc.signalCode})`, "killed");
  if (code !== 0) {
    const lines = tail.slice(-4).join(" | ") || `exit code ${code}`;
    throw new RenderError(`ffmpeg failed: ${lines}`, "failed");
  }
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** The first line of `<tool> -version` ("ffmpeg version 5.1.9-0+deb12u1 …" → "5.1.9-0+deb12u1"). */
export async function toolVersion(tool: string): Promise<string> {
  const proc = Bun.spawn([tool, "-hide_banner", "-version"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`${tool} -version exited with ${code}`);
  return /version\s+(\S+)/.exec(out)?.[1] ?? "unknown";
}

export async function hasEncoder(ffmpeg: string, encoder: string): Promise<boolean> {
  const proc = Bun.spawn([ffmpeg, "-hide_banner", "-encoders"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return new RegExp(`\\s${encoder}\\s`).test(out);
}
