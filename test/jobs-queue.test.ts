// The durable job engine on a real SQLite file: enqueue, claiming across engines and processes, leases and crashes.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../src/kernel";
import { JobAborted, JobEngine, type JobContext } from "../src/jobs";
import { SECOND, setup, gate, enqueue, runCleanups, onCleanup } from "./support/jobs-env";

afterEach(runCleanups);

describe("stopping", () => {
  test("an engine that ran logs that it stopped; one that only enqueued (serve --no-worker) says nothing of it", async () => {
    const { engine, logs } = await setup();
    const idle = engine();
    await idle.stop();
    expect(logs.filter((r) => r.msg === "job engine stopped")).toEqual([]);
    const running = engine();
    running.start();
    await running.stop();
    expect(logs.filter((r) => r.msg === "job engine stopped")).toHaveLength(1);
  });
});

describe("the log", () => {
  test("a job done is logged at info with its id, kind and attempt, as failures are at warn and error", async () => {
    const { db, engine, logs } = await setup();
    const jobs = engine();
    jobs.register("mail", () => {});
    const { id } = await enqueue(jobs, db, "mail", { to: "a" });
    await jobs.tick();
    expect(logs.filter((r) => r.msg === "job succeeded")).toEqual([expect.objectContaining({ level: "info", job: id, kind: "mail", attempt: 1 })]);
  });
});

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
    onCleanup(() => {
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
    onCleanup(() => {
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
