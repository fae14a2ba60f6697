// The job store on both drivers (SQLite, and PostgreSQL where reachable): claims across engines, leases and
// fencing, heartbeats, backoff, dead jobs and redrive.
import { afterEach, describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import { PermanentFailure } from "../src/jobs";
import { SECOND, setup, gate, enqueue, drivers, closeStores } from "./support/job-stores";

afterEach(closeStores);

describe.each(drivers)("job store on %s", (driver) => {
  test("two engines on their own handles never run a job twice", async () => {
    const { db, engine, openHandle } = await setup(driver);
    const producer = engine();
    await db.tx((tx) => producer.enqueueMany(tx, Array.from({ length: 300 }, (_, n) => ({ kind: "count", payload: { n } }))));
    const runs = new Map<string, number>();
    const workers = [engine({ db: await openHandle(), owner: "w0", batchSize: 16 }), engine({ db: await openHandle(), owner: "w1", batchSize: 16 })];
    for (const w of workers) {
      w.register("count", (job) => void runs.set(job.id, (runs.get(job.id) ?? 0) + 1), { concurrency: 8 });
    }
    for (let round = 0; round < 200; round++) {
      const claimed = await Promise.all(workers.map(async (w) => (await w.tick()) + (await w.drain(), 0)));
      if (claimed.every((n) => n === 0)) break;
    }
    expect(runs.size).toBe(300);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect((await producer.stats()).totals).toMatchObject({ succeeded: 300, queued: 0, running: 0 });
  });

  // SQLite has a single writer: a second claim transaction waits for the first instead of passing it.
  test.skipIf(driver === "sqlite")("claim transactions open at the same time take disjoint jobs (SKIP LOCKED)", async () => {
    const { db, clock, store, engine, openHandle } = await setup(driver);
    const producer = engine();
    await db.tx((tx) => producer.enqueueMany(tx, Array.from({ length: 10 }, (_, n) => ({ kind: "k", payload: { n } }))));
    const other = await openHandle();
    const request = [{ kind: "k", limit: 6, leaseMs: 30 * SECOND, keyLimit: 1 }];
    const holdFirst = gate();
    const firstClaimed = gate();
    const first = db.tx(
      async (tx) => {
        const jobs = await store.claim(tx, "a", clock.now(), request);
        firstClaimed.open();
        await holdFirst.wait; // still uncommitted while the second claimer runs
        return jobs;
      },
      { isolation: "read committed" },
    );
    await firstClaimed.wait;
    const second = await other.tx((tx) => store.claim(tx, "b", clock.now(), request), { isolation: "read committed" });
    holdFirst.open();
    const a = await first;
    expect(a.length).toBe(6);
    expect(second.length).toBe(4);
    const ids = new Set([...a, ...second].map((j) => j.id));
    expect(ids.size).toBe(10);
  });

  test("a job whose worker stopped heartbeating is rescued and run by another engine; the old worker is fenced out", async () => {
    const { db, clock, engine, openHandle } = await setup(driver);
    const a = engine({ owner: "a" });
    const b = engine({ db: await openHandle(), owner: "b" });
    const stuck = gate();
    const ran: string[] = [];
    a.register("slow", async () => {
      ran.push("a");
      await stuck.wait;
    }, { leaseMs: 10 * SECOND });
    b.register("slow", () => void ran.push("b"), { leaseMs: 10 * SECOND });
    const { id } = await enqueue(a, db, "slow");
    expect(await a.tick()).toBe(1);
    expect(await b.tick()).toBe(0);
    clock.advance(11 * SECOND);
    expect(await b.maintain()).toMatchObject({ requeued: 1, dead: 0 });
    const rescued = await b.getJob(id);
    expect(rescued?.status).toBe("queued");
    expect(rescued?.lastError).toContain("lease expired: worker a");
    expect(await b.tick()).toBe(1);
    await b.drain();
    stuck.open();
    await a.drain();
    const job = await b.getJob(id);
    expect(job).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(ran).toEqual(["a", "b"]);
  });

  test("the jobs of a stopped process of this host are taken back at once; a live one's and another host's wait out their leases", async () => {
    const { db, clock, engine, openHandle } = await setup(driver);
    // A process that runs (this one), one on another host, and one of this host that has exited (its pid is free),
    // which claims last: every engine's first round maintains.
    const exited = Bun.spawn(["true"]);
    await exited.exited;
    const owners = [`${hostname()}:${process.pid}:live0000`, `elsewhere:${exited.pid}:far00000`, `${hostname()}:${exited.pid}:dead0000`];
    const ids: string[] = [];
    for (const owner of owners) {
      const crashed = engine({ db: await openHandle(), owner });
      crashed.register(owner, () => new Promise<void>(() => {}), { leaseMs: 60 * SECOND });
      ids.push((await enqueue(crashed, db, owner)).id);
      expect(await crashed.tick()).toBe(1);
    }
    // The restarted instance, before any lease has run out.
    clock.advance(SECOND);
    const restarted = engine({ db: await openHandle() });
    expect(await restarted.maintain()).toMatchObject({ requeued: 1 });
    const [live, far, dead] = await Promise.all(ids.map((id) => restarted.getJob(id)));
    expect(dead).toMatchObject({ status: "queued", leaseOwner: null });
    expect(dead?.lastError).toContain(`lease expired: worker ${owners[2]}`);
    expect([live?.status, live?.leaseOwner, far?.status, far?.leaseOwner]).toEqual(["running", owners[0], "running", owners[1]]);
  });

  test("heartbeats keep a long job's lease through maintenance", async () => {
    const { db, clock, engine } = await setup(driver);
    const e = engine();
    const proceed = gate();
    const beaten = gate();
    e.register("long", async (job) => {
      clock.advance(8 * SECOND);
      await job.heartbeat();
      beaten.open();
      await proceed.wait;
    }, { leaseMs: 10 * SECOND });
    const { id } = await enqueue(e, db, "long");
    expect(await e.tick()).toBe(1);
    await beaten.wait;
    clock.advance(8 * SECOND); // 16 s after the claim, 8 s after the heartbeat
    expect(await e.maintain()).toMatchObject({ requeued: 0, dead: 0 });
    const running = await e.getJob(id);
    expect(running?.status).toBe("running");
    expect(running?.leaseExpiresAt).toBe(running!.heartbeatAt! + 10 * SECOND);
    proceed.open();
    await e.drain();
    expect((await e.getJob(id))?.status).toBe("succeeded");
  });

  test("a failed attempt waits out its backoff, then dead after max attempts; redrive puts it back", async () => {
    const { db, clock, engine } = await setup(driver);
    const e = engine();
    let fail = true;
    const attempts: number[] = [];
    e.register("flaky", (job) => {
      attempts.push(job.attempt);
      if (fail) throw new Error(`nope ${job.attempt}`);
    }, { maxAttempts: 2, backoff: () => 5 * SECOND });
    const { id } = await enqueue(e, db, "flaky");
    expect(await e.tick()).toBe(1);
    await e.drain();
    const failed = await e.getJob(id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, runAt: clock.now() + 5 * SECOND });
    expect(failed?.lastError).toContain("nope 1");
    expect(await e.tick()).toBe(0); // not due yet
    clock.advance(5 * SECOND);
    expect(await e.tick()).toBe(1);
    await e.drain();
    expect((await e.getJob(id))?.status).toBe("dead");
    expect((await e.listJobs({ status: "dead" })).map((j) => j.id)).toEqual([id]);

    fail = false;
    expect(await e.redrive(id)).toBe(true);
    expect(await e.redrive(id)).toBe(false);
    expect(await e.getJob(id)).toMatchObject({ status: "queued", attempts: 0 });
    expect(await e.tick()).toBe(1);
    await e.drain();
    expect(await e.getJob(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(attempts).toEqual([1, 2, 1]);
  });

  test("PermanentFailure is dead at once", async () => {
    const { db, engine } = await setup(driver);
    const e = engine();
    e.register("bad", () => {
      throw new PermanentFailure("no such thing");
    });
    const { id } = await enqueue(e, db, "bad");
    await e.tick();
    await e.drain();
    expect(await e.getJob(id)).toMatchObject({ status: "dead", attempts: 1 });
  });
});
