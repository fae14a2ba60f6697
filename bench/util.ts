// Shared benchmark plumbing: free ports, waiting for a server, running wrk and reading its figures.
export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

export async function waitFor(url: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not come up`);
}

export type WrkResult = { rps: number; p50ms: number; p99ms: number; errors: number };

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

export function ensureWrk(): string {
  const found = Bun.which("wrk");
  if (found) return found;
  console.error("wrk not found; installing Debian's wrk package (needs root)");
  Bun.spawnSync(["apt-get", "install", "-y", "wrk"], { stdout: "inherit", stderr: "inherit" });
  const again = Bun.which("wrk");
  if (!again) throw new Error("wrk is needed: apt-get install wrk");
  return again;
}

export function wrk(url: string, opts: { seconds: number; connections: number; headers?: Record<string, string> }): WrkResult {
  const args = [ensureWrk(), "-t1", `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  args.push(url);
  const out = Bun.spawnSync(args).stdout.toString();
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? "");
  const p99 = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, p50ms: p50, p99ms: p99, errors };
}
