// Idempotency that recovers (issue 18, point 5): a key whose request died mid-way is free again once its lease ends,
// keys past their 24 h are purged by a recurring job, and the admin POSTs honour Idempotency-Key. SQLite by default,
// PostgreSQL with VITRIN_TEST_DATABASE=postgres.
import { afterEach, describe, expect, test } from "bun:test";
import { createIdempotency, DEFAULT_IDEMPOTENCY_LEASE_MS, requestHash } from "../src/http/idempotency";
import { IDEMPOTENCY_PURGE_EVERY_MS, IDEMPOTENCY_PURGE_JOB } from "../src/http/idempotency-purge";
import { ADMIN_TOKEN, productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const HOUR = 3600_000;
/** VITRIN_IDEMPOTENCY_LEASE_MS's default. */
const LEASE_MS = DEFAULT_IDEMPOTENCY_LEASE_MS;

async function productBody(name: string) {
  return { name, image_url: `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 64, 48)).toString("base64")}`, dekupe: false };
}

async function keysInTable(): Promise<string[]> {
  const { db } = t.service;
  const rows = await db.read.select({ key: db.schema.idempotencyKeys.key }).from(db.schema.idempotencyKeys);
  return rows.map((r) => r.key).sort();
}

describe("a request that died mid-way", () => {
  test("holds its key only until its lease ends; then a retry runs and its answer is replayed", async () => {
    t = await startService();
    const a = await t.newAccount();
    const body = await productBody("Mug");
    const headers = { "idempotency-key": "crashed-1" };
    // What a request does before its handler runs; its instance is then killed, so it never stores an answer.
    expect(await t.service.idempotency.start(a.id, "crashed-1", await requestHash("POST", "/v1/products", body))).toMatchObject({ replay: false });

    const early = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe("Conflict");

    t.clock.advance(LEASE_MS);
    const retried = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    expect(retried.status).toBe(201);
    const replay = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(retried.body);
    expect((await t.json("GET", "/v1/products", { token: a.token })).body.data).toHaveLength(1);
  });

  test("one that died after its work committed but before its answer was kept is never run again: a retry is told so", async () => {
    t = await startService();
    const a = await t.newAccount();
    const grants = async () => (await t.json("GET", "/v1/balance/transactions", { token: a.token })).body.data.filter((x: { type: string }) => x.type === "grant");
    // The instance "dies" between the grant's commit and storing its answer: finish never comes.
    const idem = t.service.idempotency as { finish: (...args: unknown[]) => Promise<void> };
    const finish = idem.finish;
    idem.finish = () => new Promise<void>(() => {});
    const headers = { "idempotency-key": "grant-crashed" };
    const first = t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, headers, body: { amount: 7 } });
    void first.catch(() => undefined);
    for (let i = 0; i < 100 && (await grants()).length === 0; i++) await Bun.sleep(20);
    expect(await grants()).toHaveLength(1);
    idem.finish = finish;

    t.clock.advance(LEASE_MS + 1);
    const retry = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, headers, body: { amount: 7 } });
    expect(retry.status).toBe(409);
    expect(retry.body.message).toContain("was carried out, but the server stopped before its answer was kept");
    // A day later the key is still known, and the grant was still booked once.
    t.clock.advance(20 * HOUR);
    expect((await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, headers, body: { amount: 7 } })).status).toBe(409);
    expect(await grants()).toHaveLength(1);
  });

  test("one that ran past its lease before its first commit rolls its work back when a retry has taken the key", async () => {
    t = await startService();
    const a = await t.newAccount();
    const accounts = t.service.accounts as { grant: (...args: unknown[]) => Promise<unknown> };
    const grant = accounts.grant;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let calls = 0;
    // The first request stalls before its write (a slow upstream, a long writer queue) until the retry has run.
    accounts.grant = async (...args: unknown[]) => {
      if (calls++ === 0) await gate;
      return grant.apply(accounts, args);
    };
    const headers = { "idempotency-key": "slow-grant" };
    const first = t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, headers, body: { amount: 7 } });
    await Bun.sleep(100);
    t.clock.advance(LEASE_MS + 1);
    const retry = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, headers, body: { amount: 7 } });
    open();
    const late = await first;
    expect([retry.status, late.status]).toEqual([201, 409]);
    expect(late.body.message).toContain("ran past its Idempotency-Key's lease");
    const grants = (await t.json("GET", "/v1/balance/transactions", { token: a.token })).body.data.filter((x: { type: string }) => x.type === "grant");
    expect(grants).toHaveLength(1);
  });

  test("a 5xx answered after some work committed frees the key: a top-up whose provider failed can be retried", async () => {
    t = await startService();
    const a = await t.newAccount();
    const payment = t.service.plugins.payment as { createPayment: (...args: unknown[]) => Promise<unknown> };
    const createPayment = payment.createPayment;
    payment.createPayment = async () => {
      throw new Error("provider down");
    };
    const headers = { "idempotency-key": "topup-provider-down" };
    const body = { amount: 1000, currency: "usd" };
    expect((await t.json("POST", "/v1/balance/top-up", { token: a.token, headers, body })).status).toBe(503);
    payment.createPayment = createPayment;
    const retried = await t.json("POST", "/v1/balance/top-up", { token: a.token, headers, body });
    expect([retried.status, retried.body.status]).toEqual([201, "pending"]);
  });

  test("a top-up whose instance died before its payment address was stored is started afresh by a retry", async () => {
    t = await startService();
    const a = await t.newAccount();
    const payment = t.service.plugins.payment as { createPayment: (...args: unknown[]) => Promise<unknown> };
    const createPayment = payment.createPayment;
    // The pending top-up commits, then the instance "dies" while the provider is asked for a payment address.
    let asked = 0;
    payment.createPayment = () => (asked++, new Promise(() => {}));
    const headers = { "idempotency-key": "topup-died" };
    const body = { amount: 1000, currency: "usd" };
    void t.json("POST", "/v1/balance/top-up", { token: a.token, headers, body }).catch(() => undefined);
    for (let i = 0; i < 100 && asked === 0; i++) await Bun.sleep(10);
    expect(asked).toBe(1);
    payment.createPayment = createPayment;

    t.clock.advance(LEASE_MS + 1);
    const retried = await t.json("POST", "/v1/balance/top-up", { token: a.token, headers, body });
    expect([retried.status, retried.body.status]).toEqual([201, "pending"]);
    expect(retried.body.payment_url).toStartWith("http");
    const replay = await t.json("POST", "/v1/balance/top-up", { token: a.token, headers, body });
    expect(replay.body).toEqual(retried.body);
    // The orphan nobody could pay stays pending until its expiry, beside the retry's.
    const { db } = t.service;
    expect(await db.read.select({ id: db.schema.topUps.id }).from(db.schema.topUps)).toHaveLength(2);
  });

  test("a holder that outlived its lease can neither overwrite nor free the key of the request that took it over", async () => {
    t = await startService();
    const a = await t.newAccount();
    // Two instances on one database, each with its own idempotency store.
    const slow = createIdempotency(t.service.db, t.clock, { leaseMs: LEASE_MS });
    const other = createIdempotency(t.service.db, t.clock, { leaseMs: LEASE_MS });
    const hash = await requestHash("POST", "/v1/products", { name: "x" });
    await slow.start(a.id, "answered", hash);
    await slow.start(a.id, "failed", hash);
    t.clock.advance(LEASE_MS);
    expect(await other.start(a.id, "answered", hash)).toMatchObject({ replay: false });
    expect(await other.start(a.id, "failed", hash)).toMatchObject({ replay: false });

    await slow.finish(a.id, "answered", 201, '{"from":"slow"}');
    await slow.abandon(a.id, "failed");
    await other.finish(a.id, "answered", 201, '{"from":"other"}');
    expect(await other.start(a.id, "answered", hash)).toEqual({ replay: true, status: 201, body: '{"from":"other"}' });
    // Still held by the request that took it over.
    await expect(other.start(a.id, "failed", hash)).rejects.toMatchObject({ status: 409 });
  });
});

describe("purging", () => {
  test("a recurring job deletes keys older than 24 h and keeps younger ones", async () => {
    t = await startService();
    const a = await t.newAccount();
    const first = await t.json("POST", "/v1/products", { token: a.token, headers: { "idempotency-key": "old" }, body: await productBody("Old") });
    expect(first.status).toBe(201);
    expect(await keysInTable()).toEqual(["old"]);

    t.clock.advance(24 * HOUR);
    const young = await t.json("POST", "/v1/products", { token: a.token, headers: { "idempotency-key": "young" }, body: await productBody("Young") });
    expect(young.status).toBe(201);
    t.clock.advance(IDEMPOTENCY_PURGE_EVERY_MS);
    await t.runJobs();
    expect(await keysInTable()).toEqual(["young"]);

    // The run queued the next one, an interval later; that one purges the younger key once its 24 h are over.
    const next = await t.service.jobs.listJobs({ kind: IDEMPOTENCY_PURGE_JOB, status: "queued" });
    expect(next.map((j) => j.runAt)).toEqual([t.clock.now() + IDEMPOTENCY_PURGE_EVERY_MS]);
    t.clock.advance(23 * HOUR + 1);
    await t.runJobs();
    expect(await keysInTable()).toEqual([]);
  });
});

describe("admin POSTs", () => {
  test("a replayed credit grant credits once and answers the same", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const grant = () =>
      t.json("POST", `/v1/admin/accounts/${a.id}/credits`, {
        token: ADMIN_TOKEN,
        headers: { "idempotency-key": "grant-7" },
        body: { amount: 7, description: "goodwill" },
      });
    const first = await grant();
    const second = await grant();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN })).body.credits).toBe(17);
    expect(await t.service.billing.ledgerCheck()).toEqual({ accounts: 1, mismatches: [] });
  });

  test("a replayed account creation makes one account; the same key with another body is a 409", async () => {
    t = await startService();
    const create = (name: string) =>
      t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, headers: { "idempotency-key": "shop-1" }, body: { name, credits: 5 } });
    const first = await create("Shop");
    const second = await create("Shop");
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await create("Other shop")).status).toBe(409);
    expect((await t.json("GET", "/v1/admin/accounts", { token: ADMIN_TOKEN })).body.data).toHaveLength(1);
  });
});
