// The durable job engine on a real SQLite file: retries, backoff, dead letters, timeouts and concurrency limits.
import { afterEach, describe, expect, test } from "bun:test";
import { JobAborted, PermanentFailure, RetryAfter, backoffDelay, exponentialBackoff } from "../src/jobs";
import { SECOND, setup, gate, enqueue, runCleanups } from "./support/jobs-env";

afterEach(runCleanups);

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
