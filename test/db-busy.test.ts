// A SQLite write lock held by another process (the CLI, a second instance): a write waits for it briefly without
// freezing the other requests, then answers 503 Unavailable with Retry-After, never a 500 (issue 18, point 7a).
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_TOKEN, onPostgres, startService, type TestService } from "./helpers";

let t: TestService | undefined;
let other: Database | undefined;
afterEach(async () => {
  other?.close();
  other = undefined;
  await t?.close();
  t = undefined;
});

// PostgreSQL has row locks and its own retries (serialization conflicts answer 503 already); this is SQLite's file lock.
describe.skipIf(onPostgres)("SQLite write lock held by another connection", () => {
  test("a write answers 503 with Retry-After after the short wait, other requests run meanwhile, and it works once released", async () => {
    // The default wait, VITRIN_DATABASE_BUSY_TIMEOUT_MS=1000.
    t = await startService();
    const a = await t.newAccount({ credits: 5 });
    other = new Database(join(t.dir, "vitrin.db"));
    other.exec("BEGIN IMMEDIATE");

    const began = performance.now();
    let grantDone = false;
    const grant = t
      .json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 3 } })
      .finally(() => (grantDone = true));
    // The wait happens between event-loop turns: a read and /healthz are answered before the write gives up.
    expect((await t.json("GET", "/healthz")).status).toBe(200);
    expect((await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN })).body.credits).toBe(5);
    expect(grantDone).toBe(false);

    const res = await grant;
    const waited = performance.now() - began;
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("Unavailable");
    expect(res.body.message).toContain("busy");
    expect(res.headers.get("retry-after")).toBe("1");
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3000);

    other.exec("ROLLBACK");
    const again = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 3 } });
    expect(again.status).toBe(201);
    expect((await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN })).body.credits).toBe(8);
  });

  test("the wait is VITRIN_DATABASE_BUSY_TIMEOUT_MS", async () => {
    t = await startService({ VITRIN_DATABASE_BUSY_TIMEOUT_MS: "200" });
    const a = await t.newAccount();
    other = new Database(join(t.dir, "vitrin.db"));
    other.exec("BEGIN IMMEDIATE");
    const began = performance.now();
    expect((await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 3 } })).status).toBe(503);
    const waited = performance.now() - began;
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(900);
  });

  test("a lock released within the wait costs only the wait: the write goes through", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 5 });
    other = new Database(join(t.dir, "vitrin.db"));
    other.exec("BEGIN IMMEDIATE");
    const grant = t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 3 } });
    setTimeout(() => other!.exec("COMMIT"), 150);
    expect((await grant).status).toBe(201);
  });
});
