// The durable job engine on a real SQLite file: deferred writes, settlement rounds, shutdown and maintenance.
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { JobAborted, PermanentFailure, SqliteJobStore, type ClaimRequest, type Executor, type Settlement } from "../src/jobs";
import { SECOND, DAY, setup, gate, enqueue, note, notes, turns, runCleanups } from "./support/jobs-env";

afterEach(runCleanups);

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

  test("a kind's onHandedBack runs in the transaction that hands its job back; a throwing hook loses only its own writes", async () => {
    const { db, engine } = await setup();
    const jobs = engine();
    const told: unknown[] = [];
    const hook = (name: string) => async (tx: Parameters<typeof note>[0], job: { id: string; payload: unknown }) => {
      // Inside the hand-back's transaction the job is already queued again.
      const [row] = await tx.select({ status: db.schema.jobs.status }).from(db.schema.jobs).where(eq(db.schema.jobs.id, job.id));
      told.push([name, row?.status, job.payload]);
      await note(tx, `${name} waits again`);
      if (name === "broken") throw new Error("owner gone");
    };
    const wait = async (job: { signal: AbortSignal }) => new Promise<void>((resolve) => job.signal.addEventListener("abort", () => resolve()));
    jobs.register("render", wait, { onHandedBack: hook("render") });
    jobs.register("broken", wait, { onHandedBack: hook("broken") });
    jobs.register("quick", () => {}, { onHandedBack: hook("quick") });
    const render = await enqueue(jobs, db, "render", { video: "v1" });
    const broken = await enqueue(jobs, db, "broken", {});
    await enqueue(jobs, db, "quick", {});
    expect(await jobs.tick()).toBe(3);
    expect((await jobs.stop({ deadlineMs: 50 })).released).toBe(2);
    expect(told.sort()).toEqual([["broken", "queued", {}], ["render", "queued", { video: "v1" }]]);
    expect(await notes(db)).toEqual(["render waits again"]);
    expect(await jobs.getJob(render.id)).toMatchObject({ status: "queued", attempts: 0 });
    expect(await jobs.getJob(broken.id)).toMatchObject({ status: "queued", attempts: 0 });
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
