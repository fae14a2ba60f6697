// The job store on both drivers (SQLite, and PostgreSQL where reachable): dedupe and debounce keys, concurrency
// keys across engines, claims across priorities, deferred writes in a round, maintenance and stats.
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../src/kernel";
import { JobEngine } from "../src/jobs";
import { SECOND, setup, gate, enqueue, note, notes, drivers, closeStores } from "./support/job-stores";

afterEach(closeStores);

describe.each(drivers)("job store on %s", (driver) => {
  test("a live dedupe key returns the existing job; once finished, the key is free again", async () => {
    const { db, engine } = await setup(driver);
    const e = engine();
    e.register("once", () => {}, { concurrency: 4 });
    const first = await enqueue(e, db, "once", {}, { dedupeKey: "k1" });
    const again = await db.tx((tx) =>
      e.enqueueMany(tx, [
        { kind: "once", payload: {}, dedupeKey: "k1" },
        { kind: "once", payload: {}, dedupeKey: "k2" },
        { kind: "once", payload: {}, dedupeKey: "k2" },
      ]),
    );
    expect(again[0]).toEqual({ id: first.id, deduped: true });
    expect(again[1].deduped).toBe(false);
    expect(again[2]).toEqual({ id: again[1].id, deduped: true });
    expect(await e.tick()).toBe(2);
    await e.drain();
    const later = await enqueue(e, db, "once", {}, { dedupeKey: "k1" });
    expect(later.deduped).toBe(false);
    expect(later.id).not.toBe(first.id);
  });

  test("a debounce key held by a queued job returns that job, due at the earlier of the two times", async () => {
    const { db, clock, engine } = await setup(driver);
    const e = engine();
    const ran: string[] = [];
    e.register<{ n: string }>("sweep", (job) => void ran.push(job.payload.n), { concurrency: 4 });
    const now = clock.now();
    const first = await enqueue(e, db, "sweep", { n: "first" }, { debounceKey: "acct", runAt: now + 60 * SECOND });
    const later = await enqueue(e, db, "sweep", { n: "later" }, { debounceKey: "acct", runAt: now + 120 * SECOND });
    expect(later).toEqual({ id: first.id, deduped: true });
    expect((await e.getJob(first.id))!.runAt).toBe(now + 60 * SECOND);
    const mixed = await db.tx((tx) =>
      e.enqueueMany(tx, [
        { kind: "sweep", payload: { n: "plain" } },
        { kind: "sweep", payload: { n: "sooner" }, debounceKey: "acct" },
        { kind: "sweep", payload: { n: "other" }, debounceKey: "other", runAt: now + 60 * SECOND },
      ]),
    );
    expect(mixed[0]!.deduped).toBe(false);
    expect(mixed[1]).toEqual({ id: first.id, deduped: true });
    expect(mixed[2]!.deduped).toBe(false);
    // Moved up to now, payload kept; the other key's job is still scheduled for later.
    expect((await e.getJob(first.id))!.runAt).toBe(now);
    expect(await e.tick()).toBe(2);
    await e.drain();
    expect(ran.sort()).toEqual(["first", "plain"]);
    expect((await e.listJobs({ status: "queued" })).map((j) => j.id)).toEqual([mixed[2]!.id]);
  });

  test("a running job does not absorb its debounce key: the next enqueue queues a run after it, and a hand-back fits beside it", async () => {
    const { db, engine } = await setup(driver);
    const e = engine();
    const release = gate();
    let runs = 0;
    e.register("sweep", async () => {
      runs++;
      await release.wait;
    }, { keyConcurrency: 1, concurrency: 2 });
    const first = await enqueue(e, db, "sweep", {}, { debounceKey: "acct", concurrencyKey: "acct" });
    expect(await e.tick()).toBe(1);
    const second = await enqueue(e, db, "sweep", {}, { debounceKey: "acct", concurrencyKey: "acct" });
    expect(second.deduped).toBe(false);
    const third = await enqueue(e, db, "sweep", {}, { debounceKey: "acct", concurrencyKey: "acct" });
    expect(third).toEqual({ id: second.id, deduped: true });
    // The key's limit holds the queued one back while the first runs.
    expect(await e.tick()).toBe(0);
    // Shutdown hands the running job back to the queue beside the queued one: no key conflict.
    const stopping = e.stop({ deadlineMs: 0 });
    release.open();
    expect(await stopping).toEqual({ finished: 0, released: 1 });
    const queued = (await e.listJobs({ status: "queued" })).map((j) => j.id).sort();
    expect(queued).toEqual([first.id, second.id].sort());
    expect(runs).toBe(1);
  });

  test("a job takes a dedupe key or a debounce key, not both", async () => {
    const { db, engine } = await setup(driver);
    const e = engine();
    e.register("sweep", () => {});
    await expect(enqueue(e, db, "sweep", {}, { dedupeKey: "a", debounceKey: "a" })).rejects.toThrow(/not both/);
  });

  test("jobs sharing a concurrency key are limited across engines", async () => {
    const { db, clock, engine, openHandle } = await setup(driver);
    const a = engine({ owner: "a" });
    const b = engine({ db: await openHandle(), owner: "b" });
    const release = gate();
    const started: string[] = [];
    for (const e of [a, b]) {
      e.register<{ name: string }>("hook", async (job) => {
        started.push(job.payload.name);
        await release.wait;
      }, { concurrency: 10, keyConcurrency: 2 });
    }
    for (const [name, key] of [["a1", "acct_a"], ["a2", "acct_a"], ["a3", "acct_a"], ["b1", "acct_b"], ["free", undefined]] as const) {
      await enqueue(a, db, "hook", { name }, { concurrencyKey: key });
      clock.advance(1);
    }
    expect(await a.tick()).toBe(4);
    expect(started.sort()).toEqual(["a1", "a2", "b1", "free"]);
    expect(await b.tick()).toBe(0);
    release.open();
    await a.drain();
    expect(await b.tick()).toBe(1);
    await b.drain();
    expect(started.at(-1)).toBe("a3");
  });

  test("a claim takes due jobs across priorities, highest first, past many scheduled for later and a key at its limit", async () => {
    const { db, clock, engine } = await setup(driver);
    const jobs = engine();
    const release = gate();
    const started: string[] = [];
    jobs.register<{ name: string }>("work", async (job) => {
      started.push(job.payload.name);
      await release.wait;
    }, { concurrency: 4, keyConcurrency: 1 });
    const now = clock.now();
    await enqueue(jobs, db, "work", { name: "blocker" }, { concurrencyKey: "acct", runAt: now - 60 * SECOND });
    expect(await jobs.tick()).toBe(1);
    // Retries waiting for later at every priority, behind the due jobs of the same priority.
    await db.tx((tx) =>
      jobs.enqueueMany(
        tx,
        Array.from({ length: 300 }, (_, n) => ({ kind: "work", payload: { name: `later-${n}` }, runAt: now + 3600 * SECOND + n, priority: [9, 5, 0][n % 3] })),
      ),
    );
    const due: [string, number, number, string?][] = [
      ["p5-old", 5, 30],
      ["p5-acct", 5, 25, "acct"],
      ["p5-new", 5, 10],
      ["p0-old", 0, 40],
      ["p0-new", 0, 1],
      ["p-3", -3, 50],
    ];
    for (const [name, priority, ago, key] of due) await enqueue(jobs, db, "work", { name }, { priority, runAt: now - ago * SECOND, concurrencyKey: key });
    // Three free slots; p5-acct waits while the blocker holds its key.
    expect(await jobs.tick()).toBe(3);
    expect(started).toEqual(["blocker", "p5-old", "p5-new", "p0-old"]);
    release.open();
    await jobs.drain();
    expect(await jobs.tick()).toBe(3);
    await jobs.drain();
    expect(started.slice(4)).toEqual(["p5-acct", "p0-new", "p-3"]);
    expect(await jobs.tick()).toBe(0);
  });

  test("a deferred write that throws is undone alone; the other attempts' writes in the round commit", async () => {
    const { db, engine } = await setup(driver);
    const e = engine();
    e.register<{ id: string; dup?: boolean }>("write", (job) => {
      job.deferWrite((tx) => note(db, tx, job.payload.id));
      if (job.payload.dup) job.deferWrite((tx) => note(db, tx, "acct_taken"));
    }, { concurrency: 4, maxAttempts: 1 });
    await db.tx((tx) => note(db, tx, "acct_taken"));
    const good = await enqueue(e, db, "write", { id: "acct_good" });
    const bad = await enqueue(e, db, "write", { id: "acct_bad", dup: true });
    expect(await e.tick()).toBe(2);
    await e.drain();
    expect(await notes(db)).toEqual(["acct_good", "acct_taken"]);
    expect((await e.getJob(good.id))?.status).toBe("succeeded");
    expect((await e.getJob(bad.id))?.status).toBe("dead");
  });

  test("maintenance prunes finished jobs past retention; stats count by kind and status", async () => {
    const { db, clock, engine } = await setup(driver);
    const e = engine({ retainSucceededMs: 60 * SECOND });
    e.register("x", () => {});
    await enqueue(e, db, "x");
    await enqueue(e, db, "x", {}, { runAt: clock.now() + 3600 * SECOND });
    await e.tick();
    await e.drain();
    clock.advance(30 * SECOND);
    const stats = await e.stats();
    expect(stats.kinds.x).toMatchObject({ succeeded: 1, queued: 1 });
    expect(stats.oldestQueuedAgeMs).toBe(null);
    clock.advance(31 * SECOND);
    expect((await e.maintain()).pruned).toBe(1);
    expect((await e.stats()).totals).toMatchObject({ succeeded: 0, queued: 1 });
  });

  // SQLite serves one host: an engine is woken by its own enqueues only, and other processes are found by polling.
  test.skipIf(driver === "sqlite")("an enqueue on another instance wakes an idle engine without waiting for the poll", async () => {
    const { db, clock, engine, openHandle } = await setup(driver);
    const worker = engine({ pollMs: 60_000 });
    const ran = gate();
    worker.register("ping", () => ran.open());
    worker.start();
    await Bun.sleep(100); // the LISTEN is in place
    const producerDb = await openHandle();
    const producer = new JobEngine({ db: producerDb, clock, logger: memoryLogger("debug") });
    await producerDb.tx((tx) => producer.enqueue(tx, "ping", {}));
    const woke = await Promise.race([ran.wait.then(() => true), Bun.sleep(5000).then(() => false)]);
    expect(woke).toBe(true);
    await producer.stop({ deadlineMs: 0 });
  });
});
