// The durable job engine on a real SQLite file: enqueue, leases, retries, dead letters, concurrency, shutdown, crashes.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "../src/kernel";
import { openDatabase, schema, type Db, type Orm } from "../src/db";
import { ManualClock } from "../src/kernel";
import {
  JobAborted,
  JobEngine,
  PermanentFailure,
  RetryAfter,
  SqliteJobStore,
  backoffDelay,
  exponentialBackoff,
  type ClaimRequest,
  type Executor,
  type JobContext,
  type JobEngineOptions,
  type Settlement,
} from "../src/jobs";

const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

type Env = {
  dir: string;
  path: string;
  db: Db;
  clock: ManualClock;
  logs: ReturnType<typeof memoryLogger>["records"];
  /** Another engine on its own connection to the same file, as a second process would have. */
  engine(opts?: Partial<JobEngineOptions>): JobEngine;
  openHandle(): Promise<Db>;
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(clock = new ManualClock()): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-jobs-"));
  const path = join(dir, "vitrin.db");
  const db = openDatabase(`sqlite:${path}`);
  await db.migrate();
  const logger = memoryLogger("debug");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  const env: Env = {
    dir,
    path,
    db,
    clock,
    logs: logger.records,
    engine(opts = {}) {
      const engine = new JobEngine({ db, clock, logger, random: () => 0, ...opts });
      cleanups.push(async () => {
        await engine.stop({ deadlineMs: 0 });
      });
      return engine;
    },
    async openHandle() {
      const other = openDatabase(`sqlite:${path}`);
      cleanups.push(() => other.close());
      return other;
    },
  };
  return env;
}

/** A promise the test opens by hand, to hold a handler mid-job. */
function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

async function enqueue(engine: JobEngine, db: Db, kind: string, payload: unknown = {}, opts = {}) {
  return db.tx((tx) => engine.enqueue(tx, kind, payload, opts));
}

/** A row a handler's deferred write leaves behind (an account, as the simplest table to write to). */
function note(tx: Orm, id: string) {
  return tx.insert(schema.accounts).values({ id, createdAt: 0, updatedAt: 0 });
}

async function notes(db: Db): Promise<string[]> {
  return (await db.read.select({ id: schema.accounts.id }).from(schema.accounts)).map((r) => r.id).sort();
}

/** Lets the event loop run a few turns: long enough for a scheduler loop to act on what it has already been told. */
async function turns(n = 5) {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("enqueue", () => {
  test("runs inside the caller's transaction: a rollback leaves no job", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    await expect(
      db.tx(async (tx) => {
        await jobs.enqueue(tx, "mail", { to: "a" });
        throw new Error("business write failed");
      }),
    ).rejects.toThrow("business write failed");
    expect(await jobs.listJobs()).toEqual([]);

    const { id } = await enqueue(jobs, db, "mail", { to: "b" });
    const [job] = await jobs.listJobs();
    expect(job).toMatchObject({ id, kind: "mail", status: "queued", attempts: 0, payload: '{"to":"b"}' });
  });

  test("a dedupe key that is still live returns the existing job instead of a second one", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    let runs = 0;
    jobs.register("dekupe", () => {
      runs++;
    });
    const first = await enqueue(jobs, db, "dekupe", { p: 1 }, { dedupeKey: "dekupe:prod_1" });
    const again = await enqueue(jobs, db, "dekupe", { p: 2 }, { dedupeKey: "dekupe:prod_1" });
    const [inBatch, sameBatch] = await db.tx((tx) =>
      jobs.enqueueMany(tx, [
        { kind: "dekupe", payload: {}, dedupeKey: "dekupe:prod_2" },
        { kind: "dekupe", payload: {}, dedupeKey: "dekupe:prod_2" },
      ]),
    );
    expect(first.deduped).toBe(false);
    expect(again).toEqual({ id: first.id, deduped: true });
    expect(sameBatch).toEqual({ id: inBatch!.id, deduped: true });
    expect((await jobs.listJobs()).length).toBe(2);

    // Once the job has finished the key is free again: a later change needs a fresh run.
    await jobs.tick();
    await jobs.drain();
    await jobs.tick();
    await jobs.drain();
    expect(runs).toBe(2);
    const later = await enqueue(jobs, db, "dekupe", {}, { dedupeKey: "dekupe:prod_1" });
    expect(later.deduped).toBe(false);
    expect(later.id).not.toBe(first.id);
  });

  test("a commit wakes a started engine at once, without waiting for the poll", async () => {
    const { db, engine } = await setup();
    const jobs = engine({ pollMs: 60 * 60 * SECOND });
    const ran = gate();
    jobs.register("ping", () => ran.open());
    jobs.start();
    await enqueue(jobs, db, "ping");
    await ran.wait; // an hour-long poll would time the test out; only the after-commit wake can get here
  });
});

describe("claiming", () => {
  test("claims by priority, then by how long the job has been due; future jobs wait", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    const order: string[] = [];
    jobs.register<{ name: string }>("work", (job) => {
      order.push(job.payload.name);
    });
    const now = clock.now();
    await enqueue(jobs, db, "work", { name: "low-old" }, { runAt: now - 3 * SECOND });
    await enqueue(jobs, db, "work", { name: "high-new" }, { priority: 5, runAt: now - 1 * SECOND });
    await enqueue(jobs, db, "work", { name: "high-old" }, { priority: 5, runAt: now - 2 * SECOND });
    await enqueue(jobs, db, "work", { name: "urgent-later" }, { priority: 10, runAt: now + 60 * SECOND });

    for (let i = 0; i < 4; i++) {
      await jobs.tick();
      await jobs.drain();
    }
    expect(order).toEqual(["high-old", "high-new", "low-old"]);

    clock.advance(60 * SECOND);
    expect(await jobs.tick()).toBe(1);
    await jobs.drain();
    expect(order.at(-1)).toBe("urgent-later");
  });

  test("several engines on their own connections never run a job twice", async () => {
    const { db, engine, openHandle } = await setup();
    const producer = engine();
    const perEngine = 500;
    const engines = 4;
    for (let i = 0; i < engines; i++) {
      await db.tx((tx) =>
        producer.enqueueMany(
          tx,
          Array.from({ length: perEngine }, (_, n) => ({ kind: "count", payload: { n } })),
        ),
      );
    }
    const runs = new Map<string, number>();
    const workers: JobEngine[] = [];
    for (let i = 0; i < engines; i++) {
      const w = engine({ db: await openHandle(), batchSize: 32, owner: `w${i}` });
      w.register(
        "count",
        async (job) => {
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          await Promise.resolve();
        },
        { concurrency: 16 },
      );
      workers.push(w);
    }
    for (let round = 0; round < 1000; round++) {
      const claimed = await Promise.all(
        workers.map(async (w) => {
          const n = await w.tick();
          await w.drain();
          return n;
        }),
      );
      if (claimed.every((n) => n === 0)) break;
    }
    expect(runs.size).toBe(engines * perEngine);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    const stats = await producer.stats();
    expect(stats.totals).toMatchObject({ succeeded: engines * perEngine, queued: 0, running: 0 });
  });

  test("several processes racing on one file never run a job twice", async () => {
    const { db, path, engine } = await setup(new ManualClock(Date.now()));
    const producer = engine();
    const total = 2000;
    const children = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, join(import.meta.dir, "support", "jobs-child.ts"), "worker", path], {
        stdout: "pipe",
        stderr: "inherit",
      }),
    );
    cleanups.push(() => {
      for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    });
    // Enqueue only once every worker polls, or the first one up could take all jobs before the others start.
    for (let i = 0; i < 200; i++) {
      if (children.every((c) => existsSync(`${path}.ready-${c.pid}`))) break;
      await Bun.sleep(25);
    }
    await db.tx((tx) =>
      producer.enqueueMany(
        tx,
        Array.from({ length: total }, (_, n) => ({ kind: "count", payload: { n } })),
      ),
    );
    // Real processes on a real clock: poll for the outcome, bounded.
    for (let i = 0; i < 300; i++) {
      if ((await producer.stats()).totals.succeeded === total) break;
      await Bun.sleep(50);
    }
    for (const c of children) c.kill("SIGTERM");
    const outputs = await Promise.all(children.map(async (c) => JSON.parse(await new Response(c.stdout).text()) as string[]));
    const all = outputs.flat();
    expect(all.length).toBe(total);
    expect(new Set(all).size).toBe(total);
    expect(outputs.filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
  });
});

describe("leases", () => {
  test("a job whose worker stopped heartbeating is run again by another engine", async () => {
    const { db, clock, engine, openHandle } = await setup();
    const a = engine({ owner: "a" });
    const release = gate();
    let aCtx: JobContext | undefined;
    a.register(
      "render",
      async (job) => {
        aCtx = job;
        await release.wait;
      },
      { leaseMs: 10 * SECOND },
    );
    const { id } = await enqueue(a, db, "render");
    expect(await a.tick()).toBe(1);

    const b = engine({ db: await openHandle(), owner: "b" });
    const bAttempts: number[] = [];
    b.register("render", (job) => void bAttempts.push(job.attempt), { leaseMs: 10 * SECOND });
    clock.advance(5 * SECOND);
    expect(await b.tick()).toBe(0); // the lease still holds

    clock.advance(5 * SECOND + 1);
    expect(await b.tick()).toBe(1);
    await b.drain();
    expect(bAttempts).toEqual([2]);
    expect(await b.getJob(id)).toMatchObject({ status: "succeeded", attempts: 2, leaseOwner: null });

    // The first worker wakes up late: it learns it lost the job, and its result cannot overwrite anything.
    await expect(aCtx!.heartbeat()).rejects.toBeInstanceOf(JobAborted);
    expect(aCtx!.signal.aborted).toBe(true);
    release.open();
    await a.drain();
    expect(await a.getJob(id)).toMatchObject({ status: "succeeded", attempts: 2 });
  });

  test("a lost lease on the last allowed attempt sends the job to dead", async () => {
    const { db, clock, engine, openHandle } = await setup();
    const a = engine({ owner: "a" });
    a.register("render", () => new Promise<void>(() => {}), { leaseMs: 10 * SECOND });
    const { id } = await enqueue(a, db, "render", {}, { maxAttempts: 1 });
    await a.tick();
    const b = engine({ db: await openHandle(), owner: "b" });
    clock.advance(10 * SECOND + 1);
    expect(await b.maintain()).toMatchObject({ requeued: 0, dead: 1 });
    const job = await b.getJob(id);
    expect(job).toMatchObject({ status: "dead", attempts: 1, leaseOwner: null, finishedAt: clock.now() });
    expect(job!.lastError).toContain("lease expired: worker a stopped heartbeating");
    expect((await b.listJobs({ status: "dead" })).map((j) => j.id)).toEqual([id]);
  });

  test("heartbeats, by hand or automatic, keep a long job's lease", async () => {
    const { db, clock, engine, openHandle } = await setup();
    const a = engine({ owner: "a" });
    const release = gate();
    let ctx: JobContext | undefined;
    a.register(
      "render",
      async (job) => {
        ctx = job;
        await release.wait;
      },
      { leaseMs: 30 * SECOND },
    );
    const { id } = await enqueue(a, db, "render");
    await a.tick();
    const b = engine({ db: await openHandle(), owner: "b" });
    b.register("render", () => {}, { leaseMs: 30 * SECOND });

    clock.advance(20 * SECOND);
    await ctx!.heartbeat();
    clock.advance(20 * SECOND); // 40 s after the claim, 20 s after the heartbeat
    expect(await b.tick()).toBe(0);
    expect(await b.getJob(id)).toMatchObject({ status: "running", leaseOwner: "a", leaseExpiresAt: clock.now() + 10 * SECOND });

    // The engine renews on its own once a third of the lease has passed since the last renewal.
    await a.tick();
    expect((await a.getJob(id))!.leaseExpiresAt).toBe(clock.now() + 30 * SECOND);
    clock.advance(25 * SECOND);
    expect(await b.tick()).toBe(0);

    release.open();
    await a.drain();
    expect(await a.getJob(id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  test("a worker killed mid-job (SIGKILL) loses nothing: after a restart the job completes", async () => {
    const { db, path, clock, engine } = await setup(new ManualClock(Date.now()));
    const producer = engine();
    const { id } = await enqueue(producer, db, "block", { video: "vid_1" });
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "support", "jobs-child.ts"), "block", path], {
      stdout: "ignore",
      stderr: "inherit",
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    // Real process on a real clock: poll until it holds the job, bounded.
    let running = false;
    for (let i = 0; i < 200 && !running; i++) {
      running = (await producer.getJob(id))?.status === "running";
      if (!running) await Bun.sleep(25);
    }
    expect(running).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");
    expect(await producer.getJob(id)).toMatchObject({ status: "running", attempts: 1, leaseOwner: `child-block-${child.pid}` });

    const restarted = engine({ owner: "restarted" });
    const seen: { attempt: number; payload: unknown }[] = [];
    restarted.register("block", (job) => void seen.push({ attempt: job.attempt, payload: job.payload }), { leaseMs: 5 * SECOND });
    expect(await restarted.tick()).toBe(0); // the dead worker's lease has not run out yet
    clock.set(Date.now() + 6 * SECOND);
    expect(await restarted.tick()).toBe(1);
    await restarted.drain();
    expect(seen).toEqual([{ attempt: 2, payload: { video: "vid_1" } }]);
    expect(await producer.getJob(id)).toMatchObject({ status: "succeeded", attempts: 2 });
  });
});

describe("retries", () => {
  test("the default backoff doubles from 1 s up to 1 h, jittered down by at most half", () => {
    const backoff = exponentialBackoff();
    const noJitter = () => 0;
    expect([1, 2, 3, 4, 5].map((n) => backoff(n, noJitter))).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(backoff(30, noJitter)).toBe(60 * 60 * SECOND);
    for (let attempt = 1; attempt <= 14; attempt++) {
      const raw = Math.min(1000 * 2 ** (attempt - 1), 60 * 60 * SECOND);
      expect(backoff(attempt, () => 0.999999)).toBe(Math.round(raw * (1 - 0.5 * 0.999999)));
      for (let i = 0; i < 200; i++) {
        const d = backoff(attempt, Math.random);
        expect(d).toBeGreaterThanOrEqual(raw / 2);
        expect(d).toBeLessThanOrEqual(raw);
      }
    }
    // A list of delays: the last one repeats.
    expect([1, 2, 3, 4].map((n) => backoffDelay([5_000, 60_000, 600_000], n, Math.random))).toEqual([
      5_000, 60_000, 600_000, 600_000,
    ]);
  });

  test("a failed attempt is retried on the kind's backoff schedule", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    const attempts: number[] = [];
    jobs.register(
      "webhook",
      (job) => {
        attempts.push(job.attempt);
        if (job.attempt < 3) throw new Error("connection refused");
      },
      { backoff: exponentialBackoff({ baseMs: 10 * SECOND }) },
    );
    const { id } = await enqueue(jobs, db, "webhook");
    await jobs.tick();
    await jobs.drain();
    expect(await jobs.getJob(id)).toMatchObject({
      status: "failed",
      attempts: 1,
      runAt: clock.now() + 10 * SECOND,
      lastError: "Error: connection refused",
      leaseOwner: null,
    });
    clock.advance(10 * SECOND - 1);
    expect(await jobs.tick()).toBe(0);
    clock.advance(1);
    expect(await jobs.tick()).toBe(1);
    await jobs.drain();
    expect((await jobs.getJob(id))!.runAt).toBe(clock.now() + 20 * SECOND);
    clock.advance(20 * SECOND);
    await jobs.tick();
    await jobs.drain();
    expect(attempts).toEqual([1, 2, 3]);
    expect(await jobs.getJob(id)).toMatchObject({ status: "succeeded", attempts: 3 });
  });

  test("RetryAfter retries after exactly the delay the handler asked for", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    jobs.register("webhook", () => {
      throw new RetryAfter(45 * SECOND);
    });
    const { id } = await enqueue(jobs, db, "webhook");
    await jobs.tick();
    await jobs.drain();
    expect(await jobs.getJob(id)).toMatchObject({ status: "failed", attempts: 1, runAt: clock.now() + 45 * SECOND });
    clock.advance(45 * SECOND - 1);
    expect(await jobs.tick()).toBe(0);
    clock.advance(1);
    expect(await jobs.tick()).toBe(1);
  });

  test("PermanentFailure sends the job to dead at once", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    jobs.register("dekupe", () => {
      throw new PermanentFailure("product was deleted");
    });
    const { id } = await enqueue(jobs, db, "dekupe", {}, { maxAttempts: 5 });
    await jobs.tick();
    await jobs.drain();
    const job = await jobs.getJob(id);
    expect(job).toMatchObject({ status: "dead", attempts: 1, lastError: "PermanentFailure: product was deleted" });
    expect(job!.finishedAt).not.toBeNull();
  });

  test("a job that fails every attempt goes dead after max attempts", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    let calls = 0;
    jobs.register(
      "render",
      () => {
        calls++;
        throw new Error(`ffmpeg exited 1 (try ${calls})`);
      },
      { maxAttempts: 3, backoff: [0] },
    );
    const { id } = await enqueue(jobs, db, "render");
    for (let i = 0; i < 5; i++) {
      await jobs.tick();
      await jobs.drain();
    }
    expect(calls).toBe(3);
    expect(await jobs.getJob(id)).toMatchObject({ status: "dead", attempts: 3, maxAttempts: 3, lastError: "Error: ffmpeg exited 1 (try 3)" });
  });

  test("dead jobs are listed and can be redriven", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    let broken = true;
    jobs.register("payment", () => {
      if (broken) throw new PermanentFailure("provider rejected the request");
    });
    const { id } = await enqueue(jobs, db, "payment");
    await enqueue(jobs, db, "other");
    await jobs.tick();
    await jobs.drain();

    const dead = await jobs.listJobs({ status: "dead" });
    expect(dead.map((j) => j.id)).toEqual([id]);
    expect(await jobs.listJobs({ kind: "other", limit: 10 })).toHaveLength(1);

    clock.advance(SECOND);
    expect(await jobs.redrive(id)).toBe(true);
    expect(await jobs.getJob(id)).toMatchObject({ status: "queued", attempts: 0, runAt: clock.now(), finishedAt: null });
    expect(await jobs.redrive(id)).toBe(false); // only dead jobs can be redriven
    expect(await jobs.redrive("job_missing")).toBe(false);

    broken = false;
    await jobs.tick();
    await jobs.drain();
    expect(await jobs.getJob(id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  test("an attempt that runs past its timeout is aborted and retried", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    let reason: unknown;
    jobs.register(
      "render",
      async (job) => {
        await new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
        reason = job.signal.reason;
      },
      { timeoutMs: 60 * SECOND, leaseMs: 5 * 60 * SECOND },
    );
    const { id } = await enqueue(jobs, db, "render");
    await jobs.tick();
    clock.advance(60 * SECOND - 1);
    await jobs.tick();
    expect(reason).toBeUndefined();
    clock.advance(1);
    await jobs.tick();
    await jobs.drain();
    expect(reason).toBeInstanceOf(JobAborted);
    expect((reason as JobAborted).why).toBe("timeout");
    expect(await jobs.getJob(id)).toMatchObject({
      status: "failed",
      attempts: 1,
      lastError: "JobAborted: attempt timed out after 60000 ms",
    });
  });
});

describe("concurrency", () => {
  test("a kind never runs more handlers at once than its concurrency", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    const release = gate();
    let running = 0;
    let peak = 0;
    jobs.register(
      "render",
      async () => {
        peak = Math.max(peak, ++running);
        await release.wait;
        running--;
      },
      { concurrency: 2 },
    );
    for (let i = 0; i < 5; i++) await enqueue(jobs, db, "render");
    expect(await jobs.tick()).toBe(2);
    expect(await jobs.tick()).toBe(0);
    expect((await jobs.stats()).kinds.render).toMatchObject({ running: 2, queued: 3 });
    release.open();
    await jobs.drain();
    expect(await jobs.tick()).toBe(2);
    await jobs.drain();
    expect(await jobs.tick()).toBe(1);
    await jobs.drain();
    expect(peak).toBe(2);
  });

  test("jobs sharing a concurrency key are limited across all engines", async () => {
    const { db, clock, engine, openHandle } = await setup();
    const a = engine({ owner: "a" });
    const b = engine({ db: await openHandle(), owner: "b" });
    const release = gate();
    const started: string[] = [];
    for (const e of [a, b]) {
      e.register<{ name: string }>(
        "webhook",
        async (job) => {
          started.push(job.payload.name);
          await release.wait;
        },
        { concurrency: 10, keyConcurrency: 2 },
      );
    }
    const add = async (name: string, concurrencyKey?: string) => {
      await enqueue(a, db, "webhook", { name }, { concurrencyKey });
      clock.advance(1); // distinct run_at, so claim order within a key is fixed
    };
    for (const name of ["a1", "a2", "a3", "a4"]) await add(name, "acct_a");
    await add("b1", "acct_b");
    await add("free1");
    await add("free2");

    expect(await a.tick()).toBe(5);
    expect(started.sort()).toEqual(["a1", "a2", "b1", "free1", "free2"]);
    expect(await b.tick()).toBe(0); // acct_a already has two running, on the other engine

    release.open();
    await a.drain();
    expect(await b.tick()).toBe(2);
    await b.drain();
    expect(started.slice(5).sort()).toEqual(["a3", "a4"]);
  });
});

describe("deferred writes", () => {
  test("a deferred write commits with the attempt's outcome, not before", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    jobs.register("mail", (job) => job.deferWrite((tx) => note(tx, "sent")));
    const { id } = await enqueue(jobs, db, "mail");
    await jobs.tick();
    await turns();
    expect(await notes(db)).toEqual([]);
    expect(await jobs.getJob(id)).toMatchObject({ status: "running" });

    await jobs.drain();
    expect(await notes(db)).toEqual(["sent"]);
    expect(await jobs.getJob(id)).toMatchObject({ status: "succeeded" });
  });

  test("a deferred write that throws is undone and its attempt is retried with that error", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    jobs.register("mail", (job) =>
      job.deferWrite(async (tx) => {
        await note(tx, "half-written");
        throw new Error("bookkeeping broke");
      }),
    );
    const { id } = await enqueue(jobs, db, "mail");
    await jobs.tick();
    await jobs.drain();
    expect(await notes(db)).toEqual([]);
    expect(await jobs.getJob(id)).toMatchObject({ status: "failed", attempts: 1, lastError: "Error: bookkeeping broke" });
  });

  test("one attempt's failing write leaves the other attempts' writes in the same round in place", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    jobs.register<{ name: string; fail?: boolean }>(
      "mail",
      (job) =>
        job.deferWrite(async (tx) => {
          await note(tx, job.payload.name);
          if (job.payload.fail) throw new Error("no");
        }),
      { concurrency: 3 },
    );
    const a = await enqueue(jobs, db, "mail", { name: "a" });
    const b = await enqueue(jobs, db, "mail", { name: "b", fail: true });
    const c = await enqueue(jobs, db, "mail", { name: "c" });
    expect(await jobs.tick()).toBe(3);
    await jobs.drain(); // one round settles all three
    expect(await notes(db)).toEqual(["a", "c"]);
    expect((await jobs.getJob(a.id))?.status).toBe("succeeded");
    expect((await jobs.getJob(b.id))?.status).toBe("failed");
    expect((await jobs.getJob(c.id))?.status).toBe("succeeded");
  });

  test("a write deferred after the attempt timed out still commits, leaving the recorded outcome alone", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    const late = gate();
    const deferred = gate();
    jobs.register(
      "render",
      async (job) => {
        await late.wait;
        job.deferWrite((tx) => note(tx, "late"));
        deferred.open();
      },
      { timeoutMs: 60 * SECOND, leaseMs: 5 * 60 * SECOND },
    );
    const { id } = await enqueue(jobs, db, "render");
    await jobs.tick();
    clock.advance(60 * SECOND);
    await jobs.tick(); // times the attempt out and records it as failed
    late.open();
    await deferred.wait;
    await jobs.drain();
    expect(await notes(db)).toEqual(["late"]);
    expect(await jobs.getJob(id)).toMatchObject({ status: "failed", attempts: 1, lastError: "JobAborted: attempt timed out after 60000 ms" });
  });
});

describe("rounds", () => {
  test("finished handlers wait until half of those running have finished, then one round settles them together", async () => {
    const { db, engine } = await setup();
    const settleSizes: number[] = [];
    const settled = gate();
    const store = new (class extends SqliteJobStore {
      override async settle(tx: Executor, owner: string, now: number, settlements: Settlement[]) {
        settleSizes.push(settlements.length);
        const held = await super.settle(tx, owner, now, settlements);
        settled.open();
        return held;
      }
    })();
    // Long enough that only finishing handlers, never a timer, can end the wait during the test.
    const jobs = engine({ store, gatherMs: 60 * 60 * SECOND, pollMs: 60 * 60 * SECOND });
    const gates = [gate(), gate(), gate(), gate()];
    const allStarted = gate();
    let started = 0;
    jobs.register<{ i: number }>(
      "hook",
      async (job) => {
        if (++started === 4) allStarted.open();
        await gates[job.payload.i]!.wait;
      },
      // Four running in 32 slots, as when per-key limits hold a kind back: the wait is about what is in flight.
      { concurrency: 32 },
    );
    for (let i = 0; i < 4; i++) await enqueue(jobs, db, "hook", { i });
    jobs.start();
    await allStarted.wait;

    gates[0]!.open();
    await turns();
    expect(settleSizes).toEqual([]); // one of four finished: the loop keeps gathering

    gates[1]!.open();
    await settled.wait;
    expect(settleSizes).toEqual([2]);
  });

  test("a kind whose claim came back empty is not queried again until jobs are enqueued for it", async () => {
    const { db, engine } = await setup();
    const claims: string[][] = [];
    let onClaim = () => {};
    const store = new (class extends SqliteJobStore {
      override async claim(tx: Executor, owner: string, now: number, requests: ClaimRequest[]) {
        claims.push(requests.map((r) => r.kind).sort());
        const out = await super.claim(tx, owner, now, requests);
        onClaim();
        return out;
      }
    })();
    const claimsReach = (n: number) =>
      new Promise<void>((resolve) => {
        onClaim = () => claims.length >= n && resolve();
        onClaim();
      });
    const jobs = engine({ store, pollMs: 60 * 60 * SECOND });
    const bRan = gate();
    jobs.register("a", () => {});
    jobs.register("b", () => bRan.open());
    await enqueue(jobs, db, "a");
    jobs.start();
    // Round 1 claims a's job and finds nothing for b; a's handler finishing brings round 2, which asks only for a.
    await claimsReach(2);
    await turns();
    expect(claims).toEqual([["a", "b"], ["a"]]);

    await enqueue(jobs, db, "b");
    await bRan.wait;
    expect(claims.slice(2)).toEqual([["b"]]);
  });

  test("a key at its limit does not hold back another key's job queued behind its backlog", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    const hold = gate();
    const started: string[] = [];
    jobs.register<{ name: string }>(
      "hook",
      async (job) => {
        started.push(job.payload.name);
        await hold.wait;
      },
      { concurrency: 2, keyConcurrency: 1 },
    );
    const t0 = clock.now();
    await db.tx((tx) =>
      jobs.enqueueMany(
        tx,
        Array.from({ length: 100 }, (_, i) => ({ kind: "hook", payload: { name: `a${i}` }, concurrencyKey: "acct_a", runAt: t0 - 1000 + i })),
      ),
    );
    await enqueue(jobs, db, "hook", { name: "b0" }, { concurrencyKey: "acct_b" });
    await jobs.tick();
    await jobs.tick();
    expect(started).toEqual(["a0", "b0"]);
    hold.open();
  });
});

describe("lifecycle", () => {
  test("stop lets running jobs finish within the deadline and hands the rest back", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    const fastGate = gate();
    let slowReason: unknown;
    jobs.register<{ name: string }>(
      "render",
      async (job) => {
        if (job.payload.name === "fast") return fastGate.wait;
        await new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
        slowReason = job.signal.reason;
      },
      { concurrency: 2 },
    );
    const fast = await enqueue(jobs, db, "render", { name: "fast" });
    const slow = await enqueue(jobs, db, "render", { name: "slow" });
    expect(await jobs.tick()).toBe(2);

    const stopping = jobs.stop({ deadlineMs: 300 });
    fastGate.open();
    expect(await stopping).toEqual({ finished: 1, released: 1 });
    expect(await jobs.tick()).toBe(0); // a stopped engine claims nothing
    expect(await jobs.getJob(fast.id)).toMatchObject({ status: "succeeded" });
    expect(await jobs.getJob(slow.id)).toMatchObject({ status: "queued", attempts: 0, leaseOwner: null, leaseExpiresAt: null });
    expect((slowReason as JobAborted).why).toBe("shutdown");

    // Handed back, not failed: the next engine starts it as a first attempt, without waiting out a lease.
    const next = engine();
    const attempts: number[] = [];
    next.register("render", (job) => void attempts.push(job.attempt));
    expect(await next.tick()).toBe(1);
    await next.drain();
    expect(attempts).toEqual([1]);
  });

  test("maintenance prunes succeeded jobs after 7 days and dead ones after 30", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    jobs.register<{ fail?: boolean }>(
      "work",
      (job) => {
        if (job.payload.fail) throw new PermanentFailure("no");
      },
      { concurrency: 10 },
    );
    const run = async () => {
      await jobs.tick();
      await jobs.drain();
    };
    const t0 = clock.now();
    const oldOk = await enqueue(jobs, db, "work");
    const oldDead = await enqueue(jobs, db, "work", { fail: true });
    const scheduled = await enqueue(jobs, db, "work", {}, { runAt: t0 + 365 * DAY });
    await run();
    clock.advance(2 * DAY);
    const newOk = await enqueue(jobs, db, "work");
    const newDead = await enqueue(jobs, db, "work", { fail: true });
    await run();

    const ids = async () => new Set((await jobs.listJobs({ limit: 100 })).map((j) => j.id));
    clock.set(t0 + 8 * DAY);
    expect((await jobs.maintain()).pruned).toBe(1);
    expect(await ids()).toEqual(new Set([oldDead.id, scheduled.id, newOk.id, newDead.id]));

    clock.set(t0 + 31 * DAY);
    await jobs.tick(); // maintenance also runs on its own as part of the scheduler rounds
    expect(await ids()).toEqual(new Set([scheduled.id, newDead.id]));
  });

  test("stats count jobs by kind and status and report the oldest due job's age", async () => {
    const { db, clock, engine } = await setup();
    const jobs = engine();
    jobs.register("mail", () => {});
    await enqueue(jobs, db, "mail");
    await jobs.tick();
    await jobs.drain();
    await enqueue(jobs, db, "render");
    clock.advance(90 * SECOND);
    await enqueue(jobs, db, "render");
    await enqueue(jobs, db, "render", {}, { runAt: clock.now() - 200 * SECOND, priority: 1 });
    await enqueue(jobs, db, "render", {}, { runAt: clock.now() + 60 * SECOND });

    const stats = await jobs.stats();
    expect(stats.kinds.mail).toMatchObject({ succeeded: 1, queued: 0, oldestQueuedAgeMs: null });
    expect(stats.kinds.render).toMatchObject({ queued: 4, running: 0, oldestQueuedAgeMs: 200 * SECOND });
    expect(stats.totals).toEqual({ queued: 4, running: 0, succeeded: 1, failed: 0, dead: 0 });
    expect(stats.oldestQueuedAgeMs).toBe(200 * SECOND);
  });
});
