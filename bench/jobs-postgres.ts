// `npm run bench:jobs -- --postgres --instances N`: the job benchmark on PostgreSQL, with N worker processes sharing
// one fresh database (created here, dropped WITH (FORCE) at the end), beside a bare SKIP LOCKED loop in the same run.
//
//   bare      N processes, each a bare FOR UPDATE SKIP LOCKED claim loop (bench/jobs-pg-worker.ts bare) draining
//             the jobs table preloaded with the engine's own inserts: the floor the engine is measured against
//   engine    N processes, each the real JobEngine on the PostgreSQL job store with batching on, draining the same
//             preloaded table of no-op jobs
//   fed       the same N engines started idle while this process enqueues batches as fast as they are taken: what a
//             producer sees end to end (NOTIFY wake-ups included)
// jobs/s is jobs over the time from `go` to the last `finished_at` written (read from the table afterwards, so the
// progress polling here does not blur it). Every run checks each job succeeded on its first attempt, and for the
// engine that the handlers ran exactly N times in all.
// Knobs: JOBS_BENCH_N (default 50000), JOBS_BENCH_BATCH (jobs per enqueue transaction, 1000), JOBS_BENCH_CLAIM (claim
// batch and handler concurrency per instance, 512), JOBS_BENCH_RUNS (rounds of the three runs, 1),
// VITRIN_BENCH_POSTGRES_URL (a server where databases may be created; default postgres://postgres@127.0.0.1:5432/test).
import { SQL, type Subprocess } from "bun";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { createLogger } from "../src/kernel";
import { openDatabase, type Db } from "../src/db";
import { systemClock } from "../src/kernel";
import { JobEngine } from "../src/jobs";

const WORKER = join(import.meta.dir, "jobs-pg-worker.ts");
const KIND = "noop";

type Options = { instances: number; n: number; batch: number; claim: number; runs: number };
type RunResult = { jobsPerSec: number; seconds: number; perInstance: number[] };

const f0 = (n: number) => Math.round(n).toLocaleString("en-US");

/** Busy share of all CPUs over `ms`, from /proc/stat (what else the machine is doing while we are not running). */
async function cpuBusy(ms: number): Promise<number> {
  const read = () => {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + (f[4] ?? 0);
    return { idle, total: f.reduce((a, b) => a + b, 0) };
  };
  const a = read();
  await Bun.sleep(ms);
  const b = read();
  return 1 - (b.idle - a.idle) / Math.max(1, b.total - a.total);
}

const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

type Worker = { proc: Subprocess<"pipe", "pipe", "inherit">; seen: string; out: Promise<string> };

function spawnAll(mode: "engine" | "bare", url: string, o: Options): Worker[] {
  return Array.from({ length: o.instances }, (_, i) => {
    const proc = Bun.spawn([process.execPath, "run", WORKER, mode, url, `${mode}-${i}`, String(o.claim)], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
    const w: Worker = { proc, seen: "", out: Promise.resolve("") };
    w.out = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stdout) w.seen += dec.decode(chunk);
      return w.seen;
    })();
    return w;
  });
}

/** Waits until every worker has printed `ready` (connected, kind registered, waiting for `go`). */
async function allReady(workers: Worker[]): Promise<void> {
  const until = Date.now() + 30_000;
  while (!workers.every((w) => w.seen.includes("ready"))) {
    if (Date.now() > until) throw new Error("the workers never became ready");
    for (const w of workers) if (w.proc.exitCode !== null) throw new Error(`a worker exited with ${w.proc.exitCode} before it was ready`);
    await Bun.sleep(20);
  }
}

function send(workers: Worker[], line: string) {
  for (const w of workers) {
    w.proc.stdin.write(`${line}\n`);
    w.proc.stdin.flush();
  }
}

async function doneCounts(workers: Worker[]): Promise<number[]> {
  const outs = await Promise.all(workers.map((w) => w.out));
  await Promise.all(workers.map((w) => w.proc.exited));
  return outs.map((o) => {
    const line = o.trim().split("\n").pop() ?? "";
    return (JSON.parse(line) as { done: number }).done;
  });
}

async function enqueue(db: Db, engine: JobEngine, count: number, batch: number): Promise<void> {
  for (let produced = 0; produced < count; ) {
    const size = Math.min(batch, count - produced);
    await db.tx((tx) => engine.enqueueMany(tx, Array.from({ length: size }, () => ({ kind: KIND, payload: {} }))), { isolation: "read committed" });
    produced += size;
  }
}

async function succeeded(sql: SQL): Promise<number> {
  const [r] = await sql`SELECT count(*)::int AS n FROM jobs WHERE status = 'succeeded'`;
  return r.n as number;
}

/** Every job succeeded, on its first attempt; returns the last finished_at. */
async function verify(sql: SQL, n: number): Promise<number> {
  const rows = await sql`SELECT status, attempts, count(*)::int AS n, max(finished_at)::bigint AS last FROM jobs GROUP BY status, attempts`;
  if (rows.length !== 1 || rows[0].status !== "succeeded" || rows[0].attempts !== 1 || rows[0].n !== n) {
    throw new Error(`expected ${n} jobs succeeded on attempt 1, found ${JSON.stringify(rows)}`);
  }
  return Number(rows[0].last);
}

async function waitSucceeded(sql: SQL, n: number, workers: Worker[]): Promise<void> {
  for (;;) {
    if ((await succeeded(sql)) >= n) return;
    for (const w of workers) if (w.proc.exitCode !== null && w.proc.exitCode !== 0) throw new Error(`a worker exited with ${w.proc.exitCode}`);
    await Bun.sleep(100);
  }
}

async function runBare(url: string, sql: SQL, db: Db, engine: JobEngine, o: Options): Promise<RunResult> {
  await sql`TRUNCATE jobs`;
  await enqueue(db, engine, o.n, o.batch);
  const workers = spawnAll("bare", url, o);
  await allReady(workers);
  const t0 = Date.now();
  send(workers, "go");
  const perInstance = await doneCounts(workers);
  const last = await verify(sql, o.n);
  const seconds = (last - t0) / 1000;
  return { jobsPerSec: o.n / seconds, seconds, perInstance };
}

async function runEngine(url: string, sql: SQL, db: Db, engine: JobEngine, o: Options, fed: boolean): Promise<RunResult & { enqueueSeconds?: number }> {
  await sql`TRUNCATE jobs`;
  if (!fed) await enqueue(db, engine, o.n, o.batch);
  const workers = spawnAll("engine", url, o);
  await allReady(workers);
  const t0 = Date.now();
  send(workers, "go");
  let enqueueSeconds: number | undefined;
  if (fed) {
    await enqueue(db, engine, o.n, o.batch);
    enqueueSeconds = (Date.now() - t0) / 1000;
  }
  await waitSucceeded(sql, o.n, workers);
  send(workers, "stop");
  const perInstance = await doneCounts(workers);
  const last = await verify(sql, o.n);
  const ran = perInstance.reduce((a, b) => a + b, 0);
  if (ran !== o.n) throw new Error(`handlers ran ${ran} times for ${o.n} jobs`);
  const seconds = (last - t0) / 1000;
  return { jobsPerSec: o.n / seconds, seconds, perInstance, enqueueSeconds };
}

export async function postgresBench(o: Options): Promise<void> {
  const adminUrl = process.env.VITRIN_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const admin = new SQL({ url: adminUrl, max: 1 });
  const name = `vitrin_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = openDatabase(url);
  const sql = new SQL({ url, max: 1 });
  try {
    await db.migrate();
    // Enqueues go through the real engine (its insert statement, NOTIFY included); this one never claims.
    const engine = new JobEngine({ db, clock: systemClock, logger: createLogger("silent") });
    const [version] = await sql`SHOW server_version`;
    const [sync] = await sql`SHOW synchronous_commit`;
    const noise = await cpuBusy(2_000);
    console.log(
      `jobs bench on PostgreSQL ${version.server_version} (synchronous_commit=${sync.synchronous_commit}): ${f0(o.n)} no-op jobs, ` +
        `${o.instances} instances, claim batch/concurrency ${o.claim} each, enqueue batches of ${o.batch}`,
    );
    console.log(`machine: ${navigator.hardwareConcurrency} CPUs; before the runs: load average ${loadavg()}, ${(noise * 100).toFixed(0)} % CPU busy with other work`);
    const rows: [string, RunResult][] = [];
    const engines: number[] = [];
    const bares: number[] = [];
    for (let r = 0; r < o.runs; r++) {
      const b = await runBare(url, sql, db, engine, o);
      console.log(`bare SKIP LOCKED: ${f0(b.jobsPerSec)} jobs/s (${b.seconds.toFixed(2)} s; per instance ${b.perInstance.map(f0).join(" / ")}); load ${loadavg()}`);
      const e = await runEngine(url, sql, db, engine, o, false);
      console.log(`engine:           ${f0(e.jobsPerSec)} jobs/s (${e.seconds.toFixed(2)} s; per instance ${e.perInstance.map(f0).join(" / ")}); load ${loadavg()}`);
      const f = await runEngine(url, sql, db, engine, o, true);
      console.log(
        `engine, fed:      ${f0(f.jobsPerSec)} jobs/s (${f.seconds.toFixed(2)} s, enqueue took ${f.enqueueSeconds!.toFixed(2)} s; per instance ${f.perInstance.map(f0).join(" / ")}); load ${loadavg()}`,
      );
      rows.push(["bare SKIP LOCKED loop", b], ["engine (preloaded)", e], ["engine (fed while running)", f]);
      engines.push(e.jobsPerSec);
      bares.push(b.jobsPerSec);
    }
    console.log("");
    console.log(`run (${o.instances} instances)              jobs/s   seconds`);
    for (const [label, r] of rows) console.log(`${label.padEnd(30)} ${f0(r.jobsPerSec).padStart(10)}  ${r.seconds.toFixed(2).padStart(8)}`);
    const ratios = engines.map((e, i) => (e / bares[i]!).toFixed(2));
    console.log(`engine / bare                  ${ratios.join(", ").padStart(10)}`);
    console.log(`load average after: ${loadavg()}`);
  } finally {
    await sql.close().catch(() => undefined);
    db.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}
