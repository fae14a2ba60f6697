// A token's last use (last_used_at): recorded when it authenticates a request, written at most once a minute per token,
// and never failing the request when the write does (on SQLite and, with VITRIN_TEST_DATABASE=postgres, PostgreSQL).
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { pgClientOf, sqliteClientOf } from "../src/db";
import { ADMIN_TOKEN, eventually, startService, type TestService } from "./helpers";

let t: TestService | null = null;
let other: TestService | null = null;
afterEach(async () => {
  // The second instance shares the first one's database, so it goes first.
  await other?.close();
  await t?.close();
  t = other = null;
});

type Listed = { id: string; last_used_at: string | null };

/** An extra token of a new account, so the token that lists (the account's first) is not the one watched. */
async function watchedToken(s: TestService) {
  const acct = await s.newAccount();
  const made = await s.json("POST", "/v1/tokens", { token: acct.token, body: { name: "watched" } });
  return { acct, id: made.body.id as string, token: made.body.token as string };
}

async function storedLastUse(s: TestService, id: string): Promise<number | null> {
  const { tokens } = s.service.db.schema;
  const [row] = await s.service.db.read.select({ at: tokens.lastUsedAt }).from(tokens).where(eq(tokens.id, id));
  return row!.at;
}

async function setStoredLastUse(s: TestService, id: string, at: number) {
  const { tokens } = s.service.db.schema;
  await s.service.db.tx((tx) => tx.update(tokens).set({ lastUsedAt: at }).where(eq(tokens.id, id)));
}

async function use(s: TestService, token: string) {
  expect((await s.json("GET", "/v1/products", { token })).status).toBe(200);
  await s.service.accounts.tokenUseSettled();
}

test("a token that authenticates a request shows when in last_used_at, to the account and to the operator", async () => {
  t = await startService();
  const w = await watchedToken(t);
  const before = await t.json("GET", "/v1/tokens", { token: w.acct.token });
  expect(before.body.data.find((x: Listed) => x.id === w.id).last_used_at).toBeNull();
  t.clock.advance(5_000);
  const usedAt = new Date(t.clock.now()).toISOString();
  await use(t, w.token);
  t.clock.advance(5_000);
  const own = await t.json("GET", "/v1/tokens", { token: w.acct.token });
  expect(own.body.data.find((x: Listed) => x.id === w.id).last_used_at).toBe(usedAt);
  const admin = await t.json("GET", `/v1/admin/accounts/${w.acct.id}/tokens`, { token: ADMIN_TOKEN });
  expect(admin.body.data.find((x: Listed) => x.id === w.id).last_used_at).toBe(usedAt);
});

test("a second use within the minute writes nothing; a use a minute after the last write writes again", async () => {
  t = await startService();
  const w = await watchedToken(t);
  await use(t, w.token);
  const first = t.clock.now();
  expect(await storedLastUse(t, w.id)).toBe(first);
  // A marker the next write would replace: it stays only if the second use writes nothing.
  await setStoredLastUse(t, w.id, 1);
  t.clock.advance(59_000);
  await use(t, w.token);
  expect(await storedLastUse(t, w.id)).toBe(1);
  t.clock.advance(1_000);
  await use(t, w.token);
  expect(await storedLastUse(t, w.id)).toBe(first + 60_000);
});

test("a last use the database refuses to store does not fail the request, and is logged", async () => {
  t = await startService();
  const w = await watchedToken(t);
  const db = t.service.db;
  if (db.dialect === "postgres") {
    await pgClientOf(db.read).unsafe(`CREATE FUNCTION refuse_last_use() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'last use refused'; END $$;
      CREATE TRIGGER refuse_last_use BEFORE UPDATE OF last_used_at ON tokens FOR EACH ROW EXECUTE FUNCTION refuse_last_use()`);
  } else {
    sqliteClientOf(db.read).exec(
      "CREATE TRIGGER refuse_last_use BEFORE UPDATE OF last_used_at ON tokens BEGIN SELECT RAISE(ABORT, 'last use refused'); END",
    );
  }
  await use(t, w.token);
  expect(await storedLastUse(t, w.id)).toBeNull();
  const logged = await eventually(() => t!.logs.some((r) => r.msg === "token last use not recorded" && r.token_id === w.id));
  expect(logged).toBe(true);
});

test("two instances on one database: a use at either shows, and neither puts back an older time than the stored one", async () => {
  t = await startService();
  other = await startService({ VITRIN_DATABASE_URL: t.service.config.databaseUrl });
  const w = await watchedToken(t);
  t.clock.advance(90_000);
  await use(t, w.token);
  expect(await storedLastUse(t, w.id)).toBe(t.clock.now());
  // The other instance's clock is 90 s behind and it has never seen the token: its use leaves the newer time.
  await use(other, w.token);
  expect(await storedLastUse(t, w.id)).toBe(t.clock.now());
  other.clock.advance(200_000);
  await use(other, w.token);
  expect(await storedLastUse(t, w.id)).toBe(other.clock.now());
  const listed = await t.json("GET", "/v1/tokens", { token: w.acct.token });
  expect(listed.body.data.find((x: Listed) => x.id === w.id).last_used_at).toBe(new Date(other.clock.now()).toISOString());
});
