// bench:http — authenticated GET /v1/products (an account with 5 products) under wrk, beside a bare Elysia
// hello-world measured in the same run; prints req/s, p50/p99, each server's CPU time per request and the ratios.
// The three servers run side by side and are measured in turns (BENCH_ROUNDS rounds, default 3: hello-world, vitrin,
// the same body), so a slow spell of a shared machine falls on all of them; the figures are each server's median.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { freePort, waitFor, wrk, type WrkResult } from "./util";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const connections = 64;
const root = join(import.meta.dir, "..");
const bun = process.execPath;

/** A process's CPU time (user + system) so far in seconds, from /proc (Linux's 100 ticks a second); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

type Measured = WrkResult & { cpuUs: number };

/**
 * One timed wrk run, with the server's CPU microseconds per request: on a shared machine req/s move with whatever
 * else runs, while the CPU a request costs the server stays put, so it is the figure to compare changes by.
 */
function measure(pid: number, url: string, headers?: Record<string, string>): Measured {
  const before = cpuSeconds(pid);
  const started = performance.now();
  const result = wrk(url, { seconds, connections, headers });
  const after = cpuSeconds(pid);
  const requests = (result.rps * (performance.now() - started)) / 1000;
  const cpuUs = before === null || after === null ? NaN : ((after - before) * 1e6) / requests;
  return { ...result, cpuUs };
}

/** A server under test: where to send requests, how to measure one run, and how to stop it. */
type Server = { name: string; run(): Measured; stop(): Promise<void> };

async function bare(name: string, jsonFile?: string): Promise<Server> {
  const port = await freePort();
  const args = [bun, "run", join(import.meta.dir, "bare.ts"), String(port), ...(jsonFile ? [jsonFile] : [])];
  const proc = Bun.spawn(args, { stdout: "ignore", stderr: "inherit" });
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(url);
  wrk(url, { seconds: 2, connections }); // warm-up
  return {
    name,
    run: () => measure(proc.pid, url),
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

async function vitrin(listFile: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-bench-"));
  const port = await freePort();
  const admin = "bench-admin-token-0123456789";
  const proc = Bun.spawn([bun, "run", join(root, "src/main.ts"), "serve"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      VITRIN_DATA_DIR: dir,
      VITRIN_PORT: String(port),
      VITRIN_HOST: "127.0.0.1",
      VITRIN_ADMIN_TOKEN: admin,
      VITRIN_RATE_LIMIT: "0",
      VITRIN_LOG_LEVEL: process.env.VITRIN_LOG_LEVEL ?? "info",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const stop = async () => {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    const created = (await (
      await fetch(`${base}/v1/admin/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bench" }),
      })
    ).json()) as { token: string };
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#c0392b" } }).png().toBuffer();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/v1/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `Product ${i}`, description: "A product", image_url: `data:image/png;base64,${png.toString("base64")}`, dekupe: false }),
      });
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    const headers = { authorization: `Bearer ${created.token}` };
    await Bun.write(listFile, await (await fetch(`${base}/v1/products`, { headers })).text());
    wrk(`${base}/v1/products`, { seconds: 2, connections, headers }); // warm-up
    return { name: "vitrin GET /v1/products (5 products, auth)", run: () => measure(proc.pid, `${base}/v1/products`, headers), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** Each figure's median over the rounds. */
function medianOf(runs: Measured[]): Measured {
  const pick = (key: keyof Measured) => median(runs.map((r) => r[key]));
  return { rps: pick("rps"), p50ms: pick("p50ms"), p99ms: pick("p99ms"), cpuUs: pick("cpuUs"), errors: runs.reduce((a, r) => a + r.errors, 0) };
}

/** The 1, 5 and 15 minute load averages: on a shared machine they say how far req/s can be trusted. */
const load = () => (process.platform === "linux" ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") : "n/a");
const loadBefore = load();
const listFile = join(mkdtempSync(join(tmpdir(), "vitrin-bench-")), "list.json");
const servers: Server[] = [];
try {
  servers.push(await bare("bare Elysia hello-world"));
  servers.push(await vitrin(listFile));
  servers.push(await bare(`bare Elysia, same JSON body as vitrin (${Bun.file(listFile).size.toLocaleString("en-US")} bytes)`, listFile));
  const runs: Measured[][] = servers.map(() => []);
  const ratios: string[] = [];
  for (let round = 0; round < rounds; round++) {
    servers.forEach((s, i) => runs[i].push(s.run()));
    ratios.push((runs[1][round].rps / runs[0][round].rps).toFixed(2));
  }
  const medians = runs.map(medianOf);
  const [base, ours, sameBody] = medians;
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`\nbench:http — wrk, 1 thread, ${connections} connections, ${rounds} rounds of ${seconds} s each in turns, loopback; load ${loadBefore} before, ${load()} after`);
  console.log("| server (median of the rounds) | req/s | p50 ms | p99 ms | server CPU µs/request | errors |");
  console.log("|---|---|---|---|---|---|");
  servers.forEach(({ name }, i) => {
    const m = medians[i];
    console.log(`| ${name} | ${fmt(m.rps)} | ${fmt(m.p50ms, 2)} | ${fmt(m.p99ms, 2)} | ${fmt(m.cpuUs, 1)} | ${m.errors} |`);
  });
  console.log(`ratio vitrin / bare hello-world: ${(ours.rps / base.rps).toFixed(2)} (target ≥ 0.50; each round: ${ratios.join(", ")})`);
  console.log(`ratio vitrin / bare same body:   ${(ours.rps / sameBody.rps).toFixed(2)}`);
  console.log(`CPU per request, vitrin / bare hello-world: ${(ours.cpuUs / base.cpuUs).toFixed(2)}; vitrin / bare same body: ${(ours.cpuUs / sameBody.cpuUs).toFixed(2)}`);
} finally {
  for (const s of servers) await s.stop();
}
