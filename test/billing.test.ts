// Balance, top-ups and the ledger: validation, the manual provider end to end, expiry, the Stripe path against
// the real SDK with signed events, low-balance webhooks, and credits = sum of transactions under concurrency.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { ADMIN_TOKEN, startService, tempDir, type TestService } from "./helpers";
import { startFakeStripe, type FakeStripe } from "./support/fake-stripe";
import { loadConfig } from "../src/config";
import { createService } from "../src/service";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const topUp = (token: string, body: unknown) => t.json("POST", "/v1/balance/top-up", { token, body });

describe("balance", () => {
  test("GET /v1/balance shows credits, premium flag and language", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { credits: 42, language: "tr", is_premium: true } });
    const bal = await t.json("GET", "/v1/balance", { token: res.body.token });
    expect(bal.status).toBe(200);
    expect(bal.body).toEqual({ object: "balance", credits: 42, is_premium: true, language: "tr" });
  });

  test.each([
    ["999", { amount: 999, currency: "usd" }, "amount"],
    ["a string amount", { amount: "1000", currency: "usd" }, "amount"],
    ["a fractional amount", { amount: 1000.5, currency: "usd" }, "amount"],
    ["USD", { amount: 1000, currency: "USD" }, "currency"],
    ["an unknown currency", { amount: 1000, currency: "xyz" }, "currency"],
    ["an unknown field", { amount: 1000, currency: "usd", coupon: "x" }, "coupon"],
  ])("a top-up with %s is a 422", async (_label, body, field) => {
    t = await startService();
    const a = await t.newAccount();
    const res = await topUp(a.token, body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Validation failed");
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe("manual provider", () => {
  test("top-up, payment page, operator confirmation, one purchase row, balance up", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 5 });
    const res = await topUp(a.token, { amount: 1000, currency: "usd" });
    expect(res.status).toBe(201);
    // Read before toMatchObject: with asymmetric matchers it can leave matcher objects in the received value.
    const id = res.body.id as string;
    const paymentUrl = res.body.payment_url as string;
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^top_/),
      object: "top_up",
      amount: 1000,
      currency: "usd",
      credits: 100,
      status: "pending",
      payment_url: `http://vitrin.test/pay/manual/${id}`,
    });
    expect(Date.parse(res.body.expires_at) - t.clock.now()).toBe(24 * 3600 * 1000);

    const pageRes = await t.call("GET", new URL(paymentUrl).pathname);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get("content-type")).toContain("text/html");
    const html = await pageRes.text();
    expect(html).toContain(id);
    expect(html).toContain("$10.00");
    expect(html).toContain("operator");
    // A Turkish browser gets the page in Turkish, the amount written the Turkish way.
    const turkish = await (await t.call("GET", new URL(paymentUrl).pathname, { headers: { "accept-language": "tr-TR,tr;q=0.9,en;q=0.8" } })).text();
    expect(turkish).toContain('<html lang="tr">');
    expect(turkish).toContain("Kredi yükleyin");
    expect(turkish).toContain("$10,00");

    const done = await t.json("POST", `/v1/admin/top-ups/${id}/complete`, { token: ADMIN_TOKEN });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "paid", credited: true });
    const again = await t.json("POST", `/v1/admin/top-ups/${id}/complete`, { token: ADMIN_TOKEN });
    expect(again.body).toMatchObject({ status: "paid", credited: false });

    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(105);
    const txns = await t.json("GET", "/v1/balance/transactions", { token: a.token });
    expect(txns.body.data.filter((x: { type: string }) => x.type === "purchase")).toEqual([
      expect.objectContaining({ amount: 100, type: "purchase", platform: "manual", id: expect.stringMatching(/^txn_/) }),
    ]);
    const status = await t.json("GET", `/v1/balance/top-ups/${id}`, { token: a.token });
    expect(status.body.status).toBe("paid");
  });

  test("another account's top-up is a 404", async () => {
    t = await startService();
    const a = await t.newAccount();
    const b = await t.newAccount();
    const res = await topUp(a.token, { amount: 2500, currency: "eur" });
    expect((await t.json("GET", `/v1/balance/top-ups/${res.body.id}`, { token: b.token })).status).toBe(404);
  });

  test("an unpaid top-up expires when its time is up", async () => {
    t = await startService();
    const a = await t.newAccount();
    const res = await topUp(a.token, { amount: 1000, currency: "gbp" });
    await t.runJobs();
    expect((await t.json("GET", `/v1/balance/top-ups/${res.body.id}`, { token: a.token })).body.status).toBe("pending");
    t.clock.advance(24 * 3600 * 1000 + 1);
    await t.runJobs();
    expect((await t.json("GET", `/v1/balance/top-ups/${res.body.id}`, { token: a.token })).body.status).toBe("expired");
  });

  test("transactions are listed newest first with cursor pagination", async () => {
    t = await startService();
    const a = await t.newAccount();
    for (let i = 1; i <= 3; i++) {
      t.clock.advance(1000);
      await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: i } });
    }
    const first = await t.json("GET", "/v1/balance/transactions?limit=2", { token: a.token });
    expect(first.body.data.map((x: { amount: number }) => x.amount)).toEqual([3, 2]);
    expect(first.body.has_more).toBe(true);
    const next = await t.json("GET", `/v1/balance/transactions?limit=2&starting_after=${first.body.data[1].id}`, { token: a.token });
    expect(next.body.data.map((x: { amount: number }) => x.amount)).toEqual([1]);
    expect(next.body.has_more).toBe(false);
  });
});

describe("ledger", () => {
  test("parallel debits never take the balance below zero", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 100 });
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) =>
        t.service.db.tx((tx) =>
          t.service.billing.bookEntry(tx, {
            accountId: a.id,
            amount: -10,
            type: "usage",
            description: "a video",
            platform: "system",
            reference: `test:${i}`,
            at: t.clock.now(),
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(10);
    expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason.status === 402)).toBe(true);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(0);
  });

  test("credits equal the sum of transactions after a randomised parallel mix", async () => {
    t = await startService();
    const accounts = await Promise.all(Array.from({ length: 4 }, () => t.newAccount({ credits: 50 })));
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 120; i++) {
      const a = accounts[Math.floor(rand() * accounts.length)];
      const pick = rand();
      if (pick < 0.25) {
        work.push(t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 1 + Math.floor(rand() * 20) } }));
      } else if (pick < 0.45) {
        work.push(
          topUp(a.token, { amount: 1000 + Math.floor(rand() * 5000), currency: "usd" }).then((r) =>
            t.json("POST", `/v1/admin/top-ups/${r.body.id}/complete`, { token: ADMIN_TOKEN }),
          ),
        );
      } else {
        // A video's reservation and, for some, its refund.
        const ref = `video:test_${i}`;
        const cost = 1 + Math.floor(rand() * 15);
        const refund = rand() < 0.4;
        work.push(
          t.service.db
            .tx((tx) => t.service.billing.bookEntry(tx, { accountId: a.id, amount: -cost, type: "usage", description: "video", platform: "system", reference: `${ref}:usage`, at: t.clock.now() }))
            .then(() =>
              refund
                ? t.service.db.tx((tx) =>
                    t.service.billing.bookEntry(tx, { accountId: a.id, amount: cost, type: "refund", description: "video failed", platform: "system", reference: `${ref}:refund`, at: t.clock.now() }),
                  )
                : null,
            )
            .catch((e) => {
              if (e.status !== 402) throw e;
            }),
        );
      }
    }
    await Promise.all(work);
    const report = await t.service.billing.ledgerCheck();
    expect(report.accounts).toBe(4);
    expect(report.mismatches).toEqual([]);
    for (const a of accounts) expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBeGreaterThanOrEqual(0);
  });

  test("booking the same reference twice books once", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const entry = { accountId: a.id, amount: -3, type: "usage" as const, description: "v", platform: "system", reference: "video:x:usage", at: t.clock.now() };
    const one = await t.service.db.tx((tx) => t.service.billing.bookEntry(tx, entry));
    const two = await t.service.db.tx((tx) => t.service.billing.bookEntry(tx, entry));
    expect(two.created).toBe(false);
    expect(two.row.id).toBe(one.row.id);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(7);
  });

  test("`vitrin ledger check` exits 0 on a sound ledger", async () => {
    const dir = tempDir();
    try {
      const env = { PATH: process.env.PATH ?? "", VITRIN_DATA_DIR: dir, VITRIN_LOG_LEVEL: "silent" };
      const cwd = join(import.meta.dir, "..");
      expect(Bun.spawnSync([process.execPath, "run", "src/main.ts", "accounts", "create", "--credits", "9"], { env, cwd }).exitCode).toBe(0);
      const res = Bun.spawnSync([process.execPath, "run", "src/main.ts", "ledger", "check", "--json"], { env, cwd });
      expect(res.exitCode).toBe(0);
      expect(JSON.parse(res.stdout.toString())).toEqual({ accounts: 1, mismatches: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A loopback webhook receiver keeping the JSON bodies it was sent. */
function hookReceiver() {
  const received: { event: string; data: { credits: number; threshold: number } }[] = [];
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push((await req.json()) as (typeof received)[number]);
      return new Response("ok");
    },
  });
  return { received, receiver };
}

/** A service with a low-balance threshold of 10 and an account whose webhook URL is a fresh receiver. */
async function lowBalanceAccount(credits: number) {
  const hook = hookReceiver();
  try {
    t = await startService({ VITRIN_LOW_BALANCE_THRESHOLD: "10" });
    const a = await t.newAccount({ credits });
    const set = await t.json("PUT", "/v1/webhooks/endpoint", { token: a.token, body: { url: `http://127.0.0.1:${hook.receiver.port}/hook` } });
    return { ...hook, a, set };
  } catch (e) {
    hook.receiver.stop(true);
    throw e;
  }
}

describe("low balance", () => {
  test("falling under the threshold sends a signed balance.low to the account's webhook URL, once", async () => {
    const { received, receiver, a, set } = await lowBalanceAccount(15);
    try {
      expect(set.body.url).toContain("127.0.0.1");
      const spend = (n: number, ref: string) =>
        t.service.db.tx((tx) =>
          t.service.billing.bookEntry(tx, { accountId: a.id, amount: -n, type: "usage", description: "v", platform: "system", reference: ref, at: t.clock.now() }),
        );
      await spend(3, "r1"); // 12: still above
      await spend(4, "r2"); // 8: crosses
      await spend(1, "r3"); // 7: already under
      await t.runJobs();
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ event: "balance.low", data: { credits: 8, threshold: 10 } });
    } finally {
      receiver.stop(true);
    }
  });
});

describe("low balance, by an operator's correction", () => {
  test("a correction through the admin API that crosses the threshold sends balance.low; a grant sends nothing", async () => {
    const { received, receiver, a } = await lowBalanceAccount(19);
    try {
      const credits = (amount: number) => t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount } });
      expect((await credits(5)).status).toBe(201); // 24
      expect((await credits(-15)).status).toBe(201); // 9: crosses
      expect((await credits(-1)).status).toBe(201); // 8: already under
      await t.runJobs();
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ event: "balance.low", data: { credits: 9, threshold: 10 } });
    } finally {
      receiver.stop(true);
    }
  });
});

describe("stripe", () => {
  let stripe: FakeStripe;
  const WHSEC = "whsec_test_secret_for_vitrin_0123456789";
  beforeAll(() => {
    stripe = startFakeStripe();
  });
  afterAll(() => stripe.close());

  const start = () =>
    startService({
      VITRIN_PAYMENT: "stripe",
      VITRIN_STRIPE_SECRET_KEY: "sk_test_vitrin",
      VITRIN_STRIPE_WEBHOOK_SECRET: WHSEC,
      VITRIN_STRIPE_API_URL: stripe.url,
    });
  const post = (e: { body: string; signature: string }) =>
    t.call("POST", "/v1/payments/stripe/webhook", { raw: e.body, headers: { "content-type": "application/json", "stripe-signature": e.signature } });
  const purchases = async (token: string) =>
    (await t.json("GET", "/v1/balance/transactions", { token })).body.data.filter((x: { type: string }) => x.type === "purchase");

  async function begin() {
    t = await start();
    const a = await t.newAccount();
    const res = await topUp(a.token, { amount: 2000, currency: "eur" });
    expect(res.status).toBe(201);
    const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === res.body.id)!;
    return { a, top: res.body, session };
  }

  test("a top-up opens a Checkout Session in payment mode, keyed by the top-up id", async () => {
    const { top, session } = await begin();
    expect(top.payment_url).toBe(session.url);
    const req = stripe.requests.find((r) => r.path === "/v1/checkout/sessions" && r.form.client_reference_id === top.id)!;
    expect(req.idempotencyKey).toBe(top.id);
    expect(req.form).toMatchObject({
      mode: "payment",
      "line_items[0][price_data][currency]": "eur",
      "line_items[0][price_data][unit_amount]": "2000",
      "metadata[top_up_id]": top.id,
    });
    expect(req.form.success_url).toContain(`/pay/stripe/return?top_up=${top.id}`);
  });

  test("a signed checkout.session.completed books the purchase; the same event again books nothing", async () => {
    const { a, session } = await begin();
    const e = await stripe.event("checkout.session.completed", stripe.pay(session.id), WHSEC);
    expect((await post(e)).status).toBe(200);
    expect((await post(e)).status).toBe(200);
    expect(await purchases(a.token)).toEqual([expect.objectContaining({ amount: 220, platform: "stripe" })]);
  });

  test("an operator cannot book a Stripe top-up by hand: 409, nothing credited", async () => {
    const { a, top } = await begin();
    const res = await t.json("POST", `/v1/admin/top-ups/${top.id}/complete`, { token: ADMIN_TOKEN });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("handled by stripe, not confirmed by hand");
    expect(await purchases(a.token)).toEqual([]);
  });

  test("a tampered signature is a 400 and nothing is credited", async () => {
    const { a, session } = await begin();
    const e = await stripe.event("checkout.session.completed", stripe.pay(session.id), WHSEC);
    const res = await post({ body: e.body.replace('"paid"', '"paid" '), signature: e.signature });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("Bad request");
    const wrongSecret = await stripe.event("checkout.session.completed", session, "whsec_someone_else");
    expect((await post(wrongSecret)).status).toBe(400);
    expect(await purchases(a.token)).toEqual([]);
  });

  test("events out of order: expired after paid stays paid; failed then succeeded ends paid", async () => {
    const { a, session } = await begin();
    await post(await stripe.event("checkout.session.async_payment_failed", session, WHSEC));
    const failed = await t.json("GET", `/v1/balance/top-ups/${session.client_reference_id}`, { token: a.token });
    expect(failed.body.status).toBe("failed");
    await post(await stripe.event("checkout.session.async_payment_succeeded", stripe.pay(session.id), WHSEC));
    await post(await stripe.event("checkout.session.completed", session, WHSEC));
    await post(await stripe.event("checkout.session.expired", { ...session, status: "expired" }, WHSEC));
    const final = await t.json("GET", `/v1/balance/top-ups/${session.client_reference_id}`, { token: a.token });
    expect(final.body.status).toBe("paid");
    expect(await purchases(a.token)).toHaveLength(1);
  });

  test("webhook and success page fulfilling at once book one purchase", async () => {
    const { a, top, session } = await begin();
    const e = await stripe.event("checkout.session.completed", stripe.pay(session.id), WHSEC);
    const results = await Promise.all([
      post(e),
      t.call("GET", `/pay/stripe/return?top_up=${top.id}&session_id=${session.id}`),
      t.call("GET", `/pay/stripe/return?top_up=${top.id}&session_id=${session.id}`),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await results[1].text()).toContain("Payment received");
    expect(await purchases(a.token)).toHaveLength(1);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(220);
  });

  test("without keys the Stripe plugin refuses to start, naming the settings", async () => {
    const dir = tempDir();
    try {
      const config = loadConfig({ VITRIN_DATA_DIR: dir, VITRIN_PAYMENT: "stripe", VITRIN_LOG_LEVEL: "silent" });
      await expect(createService(config, { worker: false })).rejects.toThrow("VITRIN_STRIPE_SECRET_KEY and VITRIN_STRIPE_WEBHOOK_SECRET");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
