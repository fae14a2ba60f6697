// Jobs that die end cleanly: when a render or dekupe job uses up its attempts, the video fails with an error and a
// refund (exactly once) and `video.failed` is queued, the product's cut-out is marked failed, and a video waiting on a
// cut-out that never comes fails after a bounded wait instead of polling forever. The ledger balances after each.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const photo = async () => `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 640, 480)).toString("base64")}`;

async function setup(env: Record<string, string> = {}) {
  // Local storage: the fault below is a real one on disk.
  t = await startService({ VITRIN_STORAGE: "local", ...env }, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 20 });
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: await photo() } });
  await t.runJobs();
  return { acct, productId: product.body.id as string };
}

async function createVideo(token: string, productId: string) {
  const res = await t.json("POST", "/v1/videos", {
    token,
    body: { template_id: "spotlight", product_id: productId, language: "en", webhook_url: "http://127.0.0.1:9/hooks" },
  });
  expect(res.status).toBe(202);
  return res.body as { id: string; credits_reserved: number };
}

/** Balance equals the sum of the account's ledger rows, and every video's reservation is either used or refunded. */
async function ledger(accountId: string) {
  const { accounts, transactions } = t.service.db.schema;
  const [account] = await t.service.db.read.select().from(accounts).where(eq(accounts.id, accountId));
  const rows = await t.service.db.read.select().from(transactions).where(eq(transactions.accountId, accountId));
  return { balance: account!.credits, sum: rows.reduce((s, r) => s + r.amount, 0), rows };
}

/** Runs due jobs, then moves the clock past any retry back-off, a few times over. */
async function runThroughRetries(rounds = 6) {
  for (let i = 0; i < rounds; i++) {
    await t.runJobs();
    t.clock.advance(2 * 60 * 60 * 1000);
    await t.service.jobs.maintain();
  }
}

describe("a render job that uses up its attempts", () => {
  test("fails the video with an error, refunds it once and queues video.failed", async () => {
    const { acct, productId } = await setup();
    const video = await createVideo(acct.token, productId);
    // A real fault: the folder videos are stored under is a file, so every attempt's store throws (not a render error).
    writeFileSync(join(t.dir, "files", "videos"), "not a folder");
    await runThroughRetries();

    const job = (await t.service.jobs.listJobs({ kind: "video.render" }))[0]!;
    expect(job.status).toBe("dead");
    expect(job.attempts).toBe(3);
    const after = await t.json("GET", `/v1/videos/${video.id}`, { token: acct.token });
    expect(after.body.status).toBe("failed");
    expect(after.body.error.code).toBe("render_failed");
    expect(after.body.error.message).toContain("after 3 attempts");
    expect(after.body.credits_used).toBe(0);
    expect(after.body.credits_reserved).toBe(0);

    const l = await ledger(acct.id);
    expect(l.balance).toBe(20);
    expect(l.sum).toBe(20);
    expect(l.rows.filter((r) => r.reference === `video:${video.id}:refund`)).toHaveLength(1);
    const { webhookMessages } = t.service.db.schema;
    const sent = await t.service.db.read.select().from(webhookMessages).where(eq(webhookMessages.event, "video.failed"));
    expect(sent).toHaveLength(1);
  }, 60_000);

  test("an operator's redrive of the dead job does not refund a second time", async () => {
    const { acct, productId } = await setup();
    const video = await createVideo(acct.token, productId);
    writeFileSync(join(t.dir, "files", "videos"), "not a folder");
    await runThroughRetries();
    const job = (await t.service.jobs.listJobs({ kind: "video.render" }))[0]!;
    expect(await t.service.jobs.redrive(job.id)).toBe(true);
    await runThroughRetries();
    const l = await ledger(acct.id);
    expect(l.balance).toBe(20);
    expect(l.sum).toBe(20);
    expect(l.rows.filter((r) => r.reference === `video:${video.id}:refund`)).toHaveLength(1);
  }, 60_000);
});

describe("a dekupe job that uses up its attempts", () => {
  test("onDead marks a product still processing as failed, in the job's own transaction", async () => {
    const { acct, productId } = await setup();
    const { products } = t.service.db.schema;
    await t.service.db.tx((tx) => tx.update(products).set({ dekupeStatus: "processing" }).where(eq(products.id, productId)));
    // A lease that ran out on the last attempt: the instance that held it is gone.
    await t.service.db.tx((tx) => t.service.jobs.enqueue(tx, "dekupe", { productId, crop: "full" }, { maxAttempts: 1 }));
    const { jobs } = t.service.db.schema;
    await t.service.db.tx((tx) =>
      tx
        .update(jobs)
        .set({ status: "running", attempts: 1, leaseOwner: "gone:1:x", leaseExpiresAt: t.clock.now() - 1 })
        .where(and(eq(jobs.kind, "dekupe"), eq(jobs.status, "queued"))),
    );
    const result = await t.service.jobs.maintain();
    expect(result.dead).toBe(1);
    const after = await t.json("GET", `/v1/products/${productId}/dekupe`, { token: acct.token });
    expect(after.body.status).toBe("failed");
    // The customer is told the server stopped; the worker's name stays in the job's last_error.
    expect(after.body.error).toContain("the server working on it stopped before it finished");
    expect(after.body.error).not.toContain("gone:1:x");
    // The attempt is listed as failed too, with its crop, like one that failed while running.
    const attempts = (await t.json("GET", `/v1/products/${productId}/dekupe/attempts`, { token: acct.token })).body.data as Record<string, unknown>[];
    const last = attempts.at(-1)!;
    expect(last).toMatchObject({ status: "failed", crop: "full" });
    expect(String(last.error)).toContain("the server working on it stopped before it finished");
  });
});

describe("a video waiting on a cut-out that never finishes", () => {
  test("polls for a bounded time, then fails with a refund", async () => {
    const { acct, productId } = await setup({ VITRIN_DEKUPE_WAIT_MS: "600000" });
    const { products } = t.service.db.schema;
    // The cut-out says processing, and no job will ever finish it.
    await t.service.db.tx((tx) => tx.update(products).set({ dekupeStatus: "processing" }).where(eq(products.id, productId)));
    const video = await createVideo(acct.token, productId);
    await t.runJobs();
    expect((await t.json("GET", `/v1/videos/${video.id}`, { token: acct.token })).body.status).toBe("queued");
    const waiting = await t.service.jobs.listJobs({ kind: "video.render", status: "queued" });
    expect(waiting).toHaveLength(1);

    t.clock.advance(600_000);
    await t.runJobs();
    const after = await t.json("GET", `/v1/videos/${video.id}`, { token: acct.token });
    expect(after.body.status).toBe("failed");
    expect(after.body.error.code).toBe("dekupe_timeout");
    expect(await t.service.jobs.listJobs({ kind: "video.render", status: "queued" })).toHaveLength(0);
    const l = await ledger(acct.id);
    expect(l.balance).toBe(20);
    expect(l.sum).toBe(20);
  });
});

describe("a webhook delivery job that goes dead", () => {
  test("queues a fresh run for the account's waiting messages a minute on", async () => {
    const { acct } = await setup();
    const { jobs } = t.service.db.schema;
    await t.service.db.tx((tx) => t.service.jobs.enqueue(tx, "webhook.deliver", { accountId: acct.id }, { maxAttempts: 1 }));
    // Its only attempt died with its instance.
    await t.service.db.tx((tx) =>
      tx
        .update(jobs)
        .set({ status: "running", attempts: 1, leaseOwner: "gone:1:x", leaseExpiresAt: t.clock.now() - 1 })
        .where(and(eq(jobs.kind, "webhook.deliver"), eq(jobs.status, "queued"))),
    );
    expect((await t.service.jobs.maintain()).dead).toBe(1);
    const queued = await t.service.jobs.listJobs({ kind: "webhook.deliver", status: "queued" });
    expect(queued).toHaveLength(1);
    expect(JSON.parse(queued[0]!.payload)).toEqual({ accountId: acct.id });
    expect(queued[0]!.runAt).toBe(t.clock.now() + 60_000);
  });
});

describe("a top-up expiry job that goes dead", () => {
  test("asks about the still-pending top-up again an hour on", async () => {
    const { acct } = await setup();
    const topUp = await t.json("POST", "/v1/balance/top-up", { token: acct.token, body: { amount: 1000, currency: "usd" } });
    expect(topUp.status).toBe(201);
    const { jobs } = t.service.db.schema;
    // Its last attempt died with its instance.
    await t.service.db.tx((tx) =>
      tx
        .update(jobs)
        .set({ status: "running", attempts: 5, leaseOwner: "gone:1:x", leaseExpiresAt: t.clock.now() - 1 })
        .where(and(eq(jobs.kind, "topup.expire"), eq(jobs.status, "queued"))),
    );
    expect((await t.service.jobs.maintain()).dead).toBe(1);
    const queued = await t.service.jobs.listJobs({ kind: "topup.expire", status: "queued" });
    expect(queued).toHaveLength(1);
    expect(JSON.parse(queued[0]!.payload)).toEqual({ topUpId: topUp.body.id });
    expect(queued[0]!.runAt).toBe(t.clock.now() + 60 * 60 * 1000);
  });
});
