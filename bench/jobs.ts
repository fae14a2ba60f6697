// Job engine benchmark (npm run bench:jobs): no-op jobs through the real engine on SQLite, beside a bare loop of the same SQL.
//
// Three runs, each on a fresh database file in a temp dir:
//   bare      the engine's own statements (sqliteStatements, claimKind) on bun:sqlite: insert a batch, then settle + claim rounds
//   engine    the real JobEngine, started, fed by enqueueMany in batches while it runs: throughput, and latency under backlog
//   latency   the real JobEngine fed one job per transaction at a steady rate: enqueue-to-start for in-process enqueues
//   waiting   the latency run again, with JOBS_BENCH_WAITING jobs (default 100000) scheduled an hour ahead, as retries
//             wait for a down receiver: few jobs are due, so every claim looks past the waiting ones
// Knobs: JOBS_BENCH_N (jobs per throughput run, default 100000), JOBS_BENCH_BATCH (jobs per enqueue transaction, 1000),
// JOBS_BENCH_CLAIM (engine batchSize and concurrency, 512), JOBS_BENCH_LATENCY_N (jobs in the latency run, 2000).
//
// With `--postgres [--instances N]` (default 3) it runs the PostgreSQL benchmark instead: N worker processes on one fresh
// database beside a bare SKIP LOCKED claim loop (bench/jobs-postgres.ts; JOBS_BENCH_N defaults to 50000 there).
import { Database, type Statement } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/kernel";
import { openDatabase } from "../src/db";
import { systemClock } from "../src/kernel";
import { JobEngine, newJobId, type NewJob } from "../src/jobs";
import { claimKind, sqliteStatements, type Query, type Runner } from "../src/jobs/store/sqlite";
import { postgresBench } from "./jobs-postgres";

const argv = process.argv.slice(2);
const onPostgres = argv.includes("--postgres");
const instancesAt = argv.indexOf("--instances");
const INSTANCES = instancesAt >= 0 ? Number(argv[instancesAt + 1]) : 3;
if (!Number.isInteger(INSTANCES) || INSTANCES < 1) throw new Error(`--instances needs a whole number ≥ 1, got ${argv[instancesAt + 1]}`);

const N = Number(process.env.JOBS_BENCH_N ?? (onPostgres ? 50_000 : 100_000));
const BATCH = Number(process.env.JOBS_BENCH_BATCH ?? 1_000);
const CLAIM = Number(process.env.JOBS_BENCH_CLAIM ?? 512);
const LATENCY_N = Number(process.env.JOBS_BENCH_LATENCY_N ?? 2_000);
const WAITING = Number(process.env.JOBS_BENCH_WAITING ?? 100_000);
const KIND = "noop";

const root = onPostgres ? "" : mkdtempSync(join(tmpdir(), "vitrin-bench-jobs-"));
const silent = createLogger("silent");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function freshDb(name: string) {
  const db = openDatabase(`sqlite:${join(root, name, "vitrin.db")}`);
  await db.migrate();
  return db;
}

/** The engine's statements, run straight on bun:sqlite with the writer's pragmas: the floor the engine is measured against. */
async function bare(): Promise<{ jobsPerSec: number; p50: number; p99: number }> {
  const db = await freshDb("bare");
  db.close();
  const client = new Database(join(root, "bare", "vitrin.db"), { strict: true });
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("PRAGMA busy_timeout = 5000");
  client.exec("PRAGMA synchronous = NORMAL");
  // Compiled once per text, as the engine's store does.
  const compiled = new Map<string, Statement>();
  const run: Runner = <T>(q: Query) => {
    let s = compiled.get(q.text);
    if (!s) compiled.set(q.text, (s = client.prepare(q.text)));
    return s.all(...q.params) as T[];
  };
  const latencies: number[] = [];
  const enqueuedAt = new Map<string, number>();
  const request = { kind: KIND, limit: CLAIM, leaseMs: 30_000, keyLimit: 1 };
  let claimed: { id: string; attempt: number }[] = [];
  let done = 0;
  const started = performance.now();
  let produced = 0;
  // Same shape as the engine run: a batch goes in, then rounds (complete the last claim + claim the next) drain it.
  while (done < N) {
    if (produced < N) {
      const now = Date.now();
      const t = performance.now();
      const rows: NewJob[] = Array.from({ length: Math.min(BATCH, N - produced) }, () => ({
        id: newJobId(now),
        kind: KIND,
        payload: "{}",
        priority: 0,
        runAt: now,
        maxAttempts: 5,
        dedupeKey: null,
        debounceKey: null,
        concurrencyKey: null,
        createdAt: now,
      }));
      client.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < rows.length; i += 500) run(sqliteStatements.insert(rows.slice(i, i + 500)));
      client.exec("COMMIT");
      for (const r of rows) enqueuedAt.set(r.id, t);
      produced += rows.length;
    }
    for (;;) {
      const now = Date.now();
      client.exec("BEGIN IMMEDIATE");
      if (claimed.length) run(sqliteStatements.succeed("bare", now, claimed));
      done += claimed.length;
      const rows = claimKind(run, "bare", now, request);
      client.exec("COMMIT");
      const t = performance.now();
      claimed = rows.map((r) => {
        latencies.push(t - enqueuedAt.get(r.id)!);
        enqueuedAt.delete(r.id);
        return { id: r.id, attempt: 1 };
      });
      if (rows.length === 0) break;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  client.close();
  latencies.sort((a, b) => a - b);
  return { jobsPerSec: N / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function startEngine(name: string, db: Awaited<ReturnType<typeof freshDb>>, onStart: (payload: { t: number }) => void) {
  const engine = new JobEngine({ db, clock: systemClock, logger: silent, batchSize: CLAIM, owner: name });
  engine.register<{ t: number }>(KIND, (job) => onStart(job.payload), { concurrency: CLAIM, timeoutMs: 0 });
  engine.start();
  return engine;
}

/**
 * The real engine, fed batches while it runs. The producer stays at most one batch ahead of the handlers, like the bare
 * loop, so start latency measures the engine at full speed rather than a queue the producer let grow without bound.
 */
async function engineThroughput(): Promise<{ jobsPerSec: number; p50: number; p99: number }> {
  const db = await freshDb("engine");
  const latencies: number[] = [];
  let waiter: { count: number; resolve: () => void } | null = null;
  const startedAtLeast = (count: number) =>
    latencies.length >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { count, resolve }));
  const engine = startEngine("engine", db, (p) => {
    latencies.push(performance.now() - p.t);
    if (waiter && latencies.length >= waiter.count) {
      waiter.resolve();
      waiter = null;
    }
  });
  const finished = () => startedAtLeast(N);
  const started = performance.now();
  for (let produced = 0; produced < N; ) {
    await startedAtLeast(produced - BATCH);
    const size = Math.min(BATCH, N - produced);
    const t = performance.now();
    await db.tx((tx) => engine.enqueueMany(tx, Array.from({ length: size }, () => ({ kind: KIND, payload: { t } }))));
    produced += size;
  }
  await finished();
  await engine.drain(); // the last completions are written too before the clock stops
  const seconds = (performance.now() - started) / 1000;
  await engine.stop({ deadlineMs: 1_000 });
  const left = (await engine.stats()).totals;
  if (left.succeeded !== N) throw new Error(`expected ${N} succeeded jobs, found ${JSON.stringify(left)}`);
  db.close();
  latencies.sort((a, b) => a - b);
  return { jobsPerSec: N / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** One job per transaction at a steady pace, as request handlers enqueue: how soon does a handler start? */
async function engineLatency(waiting = 0): Promise<{ p50: number; p99: number; rate: number }> {
  const db = await freshDb(`latency-${waiting}`);
  const later = Date.now() + 3_600_000;
  for (let i = 0; i < waiting; i += BATCH) {
    const size = Math.min(BATCH, waiting - i);
    await db.tx((tx) => new JobEngine({ db, clock: systemClock, logger: silent }).enqueueMany(tx, Array.from({ length: size }, () => ({ kind: KIND, payload: { t: 0 }, runAt: later }))));
  }
  const latencies: number[] = [];
  let all!: () => void;
  const finished = new Promise<void>((resolve) => (all = resolve));
  const engine = startEngine("latency", db, (p) => {
    latencies.push(performance.now() - p.t);
    if (latencies.length === LATENCY_N) all();
  });
  const started = performance.now();
  for (let i = 0; i < LATENCY_N; i++) {
    const t = performance.now();
    await db.tx((tx) => engine.enqueue(tx, KIND, { t }));
    await Bun.sleep(1);
  }
  await finished;
  const rate = LATENCY_N / ((performance.now() - started) / 1000);
  await engine.stop({ deadlineMs: 1_000 });
  db.close();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rate };
}

const f1 = (n: number) => n.toFixed(1);
const f0 = (n: number) => Math.round(n).toLocaleString("en-US");
if (onPostgres) {
  await postgresBench({ instances: INSTANCES, n: N, batch: BATCH, claim: CLAIM, runs: Number(process.env.JOBS_BENCH_RUNS ?? 1) });
} else {
  try {
    console.log(`jobs bench: ${f0(N)} no-op jobs, enqueue batches of ${BATCH}, claim batches/concurrency ${CLAIM}; SQLite WAL`);
    const b = await bare();
    console.log(`bare SQL done: ${f0(b.jobsPerSec)} jobs/s`);
    const e = await engineThroughput();
    console.log(`engine done:   ${f0(e.jobsPerSec)} jobs/s`);
    const l = await engineLatency();
    console.log(`latency done:  ${f0(LATENCY_N)} single-job enqueues at ${f0(l.rate)}/s`);
    const w = await engineLatency(WAITING);
    console.log(`waiting done:  the same with ${f0(WAITING)} jobs scheduled an hour ahead, at ${f0(w.rate)}/s`);
    console.log("");
    console.log("run                         jobs/s    start p50 ms  start p99 ms");
    console.log(`bare SQL (batched)      ${f0(b.jobsPerSec).padStart(10)}  ${f1(b.p50).padStart(12)}  ${f1(b.p99).padStart(12)}`);
    console.log(`engine (batched)        ${f0(e.jobsPerSec).padStart(10)}  ${f1(e.p50).padStart(12)}  ${f1(e.p99).padStart(12)}`);
    console.log(`engine (single enqueue) ${"-".padStart(10)}  ${f1(l.p50).padStart(12)}  ${f1(l.p99).padStart(12)}`);
    console.log(`  … ${f0(WAITING)} waiting    ${"-".padStart(10)}  ${f1(w.p50).padStart(12)}  ${f1(w.p99).padStart(12)}`);
    console.log(`engine / bare           ${(e.jobsPerSec / b.jobsPerSec).toFixed(2).padStart(10)}`);
    console.log(`start p50 with waiting jobs / without: ${(w.p50 / l.p50).toFixed(2)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
