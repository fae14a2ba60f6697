// The repositories on both drivers: the same calls must give the same values and keep the same promises under
// concurrency (product limit, no overdraft, one winner per idempotency key), on SQLite and on PostgreSQL.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createRateLimiter } from "../src/http/ratelimit";
import { requestHash } from "../src/http/idempotency";
import { createPostgresDatabase, postgresAvailable, productPhoto, startService, tempDir, type TestService } from "./helpers";

type Driver = "sqlite" | "postgres";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function serviceOn(driver: Driver): Promise<TestService> {
  let url: string;
  if (driver === "sqlite") {
    url = `sqlite:${join(tempDir(), "v.db")}`;
  } else {
    const pg = await createPostgresDatabase();
    cleanups.push(() => pg.drop());
    url = pg.url;
  }
  const t = await startService({ VITRIN_DATABASE_URL: url });
  cleanups.push(() => t.close());
  return t;
}

let photo: string | null = null;
async function imageUrl(): Promise<string> {
  photo ??= `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 48)).toString("base64")}`;
  return photo;
}

const drivers: Driver[] = postgresAvailable ? ["sqlite", "postgres"] : ["sqlite"];

describe.each(drivers)("data layer on %s", (driver) => {
  test("accounts and tokens: rows carry plain numbers and booleans; tokens authenticate until revoked", async () => {
    const t = await serviceOn(driver);
    const { service } = t;
    expect(service.db.dialect).toBe(driver);
    const { account, token } = await service.accounts.create({ name: "Ada", credits: 12, isPremium: true });
    expect(account).toMatchObject({ name: "Ada", credits: 12, isPremium: true, language: "en", createdAt: t.clock.now() });
    expect(typeof account.createdAt).toBe("number");
    const principal = await service.accounts.authenticate(token.token);
    expect(principal).toEqual({ accountId: account.id, tokenId: token.id });
    expect(await service.accounts.revokeToken(token.id)).toBe(true);
    expect(await service.accounts.revokeToken(token.id)).toBe(false);
    expect(await service.accounts.authenticate(token.token)).toBe(null);
    const updated = await service.accounts.update(account.id, { isPremium: false });
    expect(updated.isPremium).toBe(false);
  });

  test("products: the 5-per-account limit holds against concurrent creates; lists page by cursor", async () => {
    const t = await serviceOn(driver);
    const { service } = t;
    const { account } = await service.accounts.create({});
    const image = await imageUrl();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => service.products.create(account.id, { name: `p${i}`, image_url: image, dekupe: false })),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(5);
    for (const r of results) if (r.status === "rejected") expect((r.reason as { status: number }).status).toBe(403);

    const first = await service.products.list(account.id, { limit: 2 });
    expect(first.data.length).toBe(2);
    expect(first.has_more).toBe(true);
    const second = await service.products.list(account.id, { limit: 2, starting_after: first.data[1].id });
    const third = await service.products.list(account.id, { limit: 2, starting_after: second.data[1].id });
    expect(third.has_more).toBe(false);
    const seen = [...first.data, ...second.data, ...third.data].map((p) => p.id);
    expect(new Set(seen).size).toBe(5);
    const back = await service.products.list(account.id, { limit: 2, ending_before: third.data[0].id });
    expect(back.data.map((p) => p.id)).toEqual(second.data.map((p) => p.id));
  });

  test("ledger: concurrent debits never overdraw, a reference books once, credits equal the sum of rows", async () => {
    const t = await serviceOn(driver);
    const { service } = t;
    const { account } = await service.accounts.create({ credits: 10 });
    const at = t.clock.now();
    const debit = (ref: string) =>
      service.db.tx((tx) =>
        service.billing.bookEntry(tx, { accountId: account.id, amount: -3, type: "usage", description: "video", platform: "system", reference: ref, at }),
      );
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => debit(`video:v${i}:usage`)));
    expect(outcomes.filter((o) => o.status === "fulfilled").length).toBe(3);
    for (const o of outcomes) if (o.status === "rejected") expect((o.reason as { status: number }).status).toBe(402);
    const booked = outcomes.findIndex((o) => o.status === "fulfilled");
    const again = await debit(`video:v${booked}:usage`);
    expect(again.created).toBe(false);
    const balance = await service.billing.balance(account.id);
    expect(balance.credits).toBe(1);
    expect(await service.billing.ledgerCheck()).toEqual({ accounts: 1, mismatches: [] });
    const page = await service.billing.transactions(account.id, { limit: 10 });
    expect(page.data.map((r) => r.amount).sort()).toEqual([-3, -3, -3, 10]);
  });

  test("idempotency keys: one winner under concurrency, then replay; another body is a 409", async () => {
    const t = await serviceOn(driver);
    const { idempotency } = t.service;
    const { account } = await t.service.accounts.create({});
    const hash = await requestHash("POST", "/v1/products", { name: "x" });
    const starts = await Promise.allSettled(Array.from({ length: 4 }, () => idempotency.start(account.id, "key-1", hash)));
    expect(starts.filter((s) => s.status === "fulfilled").length).toBe(1);
    for (const s of starts) if (s.status === "rejected") expect((s.reason as { status: number }).status).toBe(409);
    await idempotency.finish(account.id, "key-1", 201, '{"ok":true}');
    expect(await idempotency.start(account.id, "key-1", hash)).toEqual({ replay: true, status: 201, body: '{"ok":true}' });
    const other = await requestHash("POST", "/v1/products", { name: "y" });
    expect(idempotency.start(account.id, "key-1", other)).rejects.toMatchObject({ status: 409 });
    await idempotency.abandon(account.id, "key-1");
    expect(await idempotency.start(account.id, "key-1", other)).toMatchObject({ replay: false });
  });

  test("rate limits: a burst, then one request per interval, the same on both stores", async () => {
    const t = await serviceOn(driver);
    const limiter = createRateLimiter(t.service.db, 60, 3, t.clock);
    const take = async () => (await limiter.check("tok_1")).allowed;
    expect([await take(), await take(), await take(), await take()]).toEqual([true, true, true, false]);
    const denied = await limiter.check("tok_1");
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(await limiter.check("tok_2")).toMatchObject({ allowed: true, remaining: 2 });
    t.clock.advance(1000);
    expect([await take(), await take()]).toEqual([true, false]);
  });
});
