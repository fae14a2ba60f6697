// Three real `vitrin serve` processes sharing one fresh PostgreSQL database and one s3rver bucket (VITRIN_STORAGE=s3):
//   (a) 2,000 webhook pings, sent to the three APIs in turn, are each delivered exactly once, by more than one instance;
//   (b) the instance rendering a video is SIGKILLed mid-render, and another instance finishes the video, charging once;
//   (c) the instance delivering that video's `video.completed` webhook is SIGKILLed mid-delivery, and the last one
//       delivers it again: one arrival per attempt, both with the same `webhook-id`.
//
// Who runs what is read from the `jobs` table, never guessed: the loopback receiver looks up, before it answers, which
// lease owner holds the job delivering each request (a job stays `running` until its handler returns, and the handler
// is waiting for this very response). Owners are `host:pid:random`, so the pid names the process.
//
// Leases are shortened to 4 s with VITRIN_JOB_LEASE_MS (renewed every 1.3 s), so a killed instance's jobs are
// taken over by the product's own path within seconds: its lease runs out, a surviving instance's maintenance pass
// (every 5 s, under the advisory lock) rescues the job, and some instance claims and reruns it.
//
// s3rver does not check request signatures (see test/support/s3.ts); signing is tested in test/storage-s3.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { childEnv, freePort, POSTGRES_ADMIN_URL, postgresAvailable, productPhoto, startImageHost, tempDir, type ImageHost } from "./helpers";
import { startS3Server, type S3Server } from "./support/s3";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const ADMIN = "multi-instance-admin-token-0123456789";
const PINGS = 2_000;
// One delivery job per account runs at a time across all instances, and one instance runs at most 32 accounts' jobs at
// once (ACCOUNTS_AT_ONCE in src/webhooks/delivery.ts): with more accounts than that, no instance can hold every
// account's job, so the work must spread. With 10, one quick instance once took all 2,000 pings (2026-11-26).
const PING_ACCOUNTS = 40;
const TEMPLATE = "feature-split"; // the longest render of the built-in templates (16:9, about 3 s at full threads)

type Instance = { name: string; proc: Subprocess; base: string; dir: string; killed: boolean };
type Delivery = { webhookId: string; event: string; owner: string | null; attempt: number | null };

let admin: SQL | null = null;
let db: SQL | null = null;
let dbName = "";
let s3: S3Server | null = null;
let bucket = "";
let images: ImageHost | null = null;
let receiver: ReturnType<typeof Bun.serve> | null = null;
const instances: Instance[] = [];
const deliveries: Delivery[] = [];
/** video.completed requests the test wants to hold open (answered when the test says so, or never). */
let holdCompleted: ((d: Delivery) => Promise<number>) | null = null;

function spawnInstance(name: string, env: Record<string, string>): Instance {
  const port = freePort();
  const dir = tempDir(`vitrin-mi-${name}-`);
  const proc = Bun.spawn([process.execPath, "run", MAIN, "serve"], {
    env: childEnv(dir, port, {
      VITRIN_ADMIN_TOKEN: ADMIN,
      VITRIN_RATE_LIMIT: "0",
      VITRIN_POLL_MS: "200",
      VITRIN_RENDER_THREADS: "1",
      VITRIN_JOB_LEASE_MS: "4000",
      ...env,
    }),
    stdout: "ignore",
    stderr: "inherit",
  });
  return { name, proc, base: `http://127.0.0.1:${port}`, dir, killed: false };
}

async function ready(i: Instance): Promise<void> {
  for (let n = 0; n < 600; n++) {
    if (i.proc.exitCode !== null) throw new Error(`${i.name} exited with ${i.proc.exitCode} before it was ready`);
    const res = await fetch(`${i.base}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    await Bun.sleep(50);
  }
  throw new Error(`${i.name} never became ready`);
}

/** Polls `check` until it returns a value (not undefined/false); fails with `what` after `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000, everyMs = 25): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

function pidOf(owner: string): number {
  const parts = owner.split(":");
  return Number(parts[parts.length - 2]);
}

function instanceOf(owner: string): Instance {
  const i = instances.find((x) => x.proc.pid === pidOf(owner));
  if (!i) throw new Error(`lease owner ${owner} is none of the test's instances`);
  return i;
}

/** Every live descendant of `pid` (ffmpeg is spawned detached, so it would outlive its parent). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let children = "";
    try {
      children = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8");
    } catch {
      continue;
    }
    for (const c of children.split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

/** SIGKILL, as a machine dying: the instance and whatever it had running (its ffmpeg), with no chance to clean up. */
async function kill(i: Instance): Promise<void> {
  const children = descendants(i.proc.pid);
  i.killed = true;
  i.proc.kill("SIGKILL");
  for (const c of children) {
    try {
      process.kill(c, "SIGKILL");
    } catch {}
  }
  await i.proc.exited;
  expect(i.proc.signalCode).toBe("SIGKILL");
}

function live(): Instance[] {
  return instances.filter((i) => !i.killed);
}

async function api<T = any>(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function newAccount(base: string, credits: number): Promise<string> {
  const res = await api<{ token: string }>(base, "POST", "/v1/admin/accounts", ADMIN, { credits });
  if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

// The receiver asks PostgreSQL who is delivering each request before it answers; lookups arriving together share a query.
let lookups: { messageId: string; resolve(r: { owner: string | null; attempt: number | null }): void }[] = [];
/** Which instance holds the lease of the delivery job sending this message (one job per account), and its attempt. */
function leaseOf(messageId: string): Promise<{ owner: string | null; attempt: number | null }> {
  return new Promise((resolve) => {
    if (lookups.length === 0) setImmediate(flushLookups);
    lookups.push({ messageId, resolve });
  });
}
async function flushLookups() {
  const batch = lookups;
  lookups = [];
  const rows: { id: string; lease_owner: string; attempts: number }[] = await db!.unsafe(
    `SELECT m.id, j.lease_owner, j.attempts FROM webhook_messages m
      JOIN jobs j ON j.kind = 'webhook.deliver' AND j.status = 'running' AND j.payload = '{"accountId":"' || m.account_id || '"}'
      WHERE m.id = ANY($1::text[])`,
    [batch.map((b) => b.messageId)],
  );
  const byMessage = new Map(rows.map((r) => [r.id, r]));
  for (const b of batch) {
    const r = byMessage.get(b.messageId);
    b.resolve({ owner: r?.lease_owner ?? null, attempt: r ? Number(r.attempts) : null });
  }
}

if (!postgresAvailable) console.warn(`multi-instance test skipped: PostgreSQL at ${POSTGRES_ADMIN_URL} is not reachable (it needs a server where it may create databases)`);

describe.skipIf(!postgresAvailable)("three instances on one PostgreSQL database and one s3rver", () => {
  beforeAll(async () => {
    admin = new SQL({ url: POSTGRES_ADMIN_URL, max: 1 });
    dbName = `vitrin_mi_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${dbName}`;
    db = new SQL({ url: url.toString(), max: 4 });

    s3 = await startS3Server();
    bucket = await s3.newBucket();
    images = startImageHost({ "/p.png": { body: await productPhoto("png"), type: "image/png" } });
    receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const webhookId = req.headers.get("webhook-id") ?? "";
        const event = ((await req.json()) as { event: string }).event;
        const lease = await leaseOf(webhookId);
        const d: Delivery = { webhookId, event, ...lease };
        deliveries.push(d);
        const status = event === "video.completed" && holdCompleted ? await holdCompleted(d) : 200;
        return new Response("ok", { status });
      },
    });

    const env = { VITRIN_DATABASE_URL: url.toString(), ...s3.env(bucket) };
    // Started together: they race for the migration lock on the empty database, as a fleet rolling out would.
    for (const name of ["a", "b", "c"]) instances.push(spawnInstance(name, env));
    await Promise.all(instances.map(ready));
  }, 60_000);

  afterAll(async () => {
    for (const i of live()) i.proc.kill("SIGTERM");
    await Promise.race([Promise.all(instances.map((i) => i.proc.exited)), Bun.sleep(15_000)]);
    for (const i of instances) if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill("SIGKILL");
    await Promise.all(instances.map((i) => i.proc.exited));
    for (const i of instances) rmSync(i.dir, { recursive: true, force: true });
    receiver?.stop(true);
    images?.close();
    await s3?.close();
    await db?.close();
    if (admin && dbName) await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin?.close();
  }, 30_000);

  test(`${PINGS} webhook pings are each delivered exactly once, spread over the instances`, async () => {
    const bases = instances.map((i) => i.base);
    const tokens = await Promise.all(Array.from({ length: PING_ACCOUNTS }, (_, n) => newAccount(bases[n % 3]!, 0)));
    const target = `http://127.0.0.1:${receiver!.port}/hook`;
    const expected = new Set<string>();
    let next = 0;
    // 24 requests in flight, round-robin over the three APIs: every instance enqueues, every instance is woken.
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        for (let n = next++; n < PINGS; n = next++) {
          const res = await api<{ id: string }>(bases[n % 3]!, "POST", "/v1/webhooks/test", tokens[n % PING_ACCOUNTS]!, { url: target });
          if (res.status !== 202) throw new Error(`ping ${n}: ${res.status} ${JSON.stringify(res.body)}`);
          expected.add(res.body.id);
        }
      }),
    );
    expect(expected.size).toBe(PINGS);

    // Done means: every ping is recorded as delivered and no delivery job is left to run, so nothing can deliver again.
    await until(
      "every ping to be delivered and every delivery job to end",
      async () => {
        const [m] = await db!`SELECT count(*)::int AS n FROM webhook_messages WHERE event = 'ping' AND status = 'delivered'`;
        const [j] = await db!`SELECT count(*)::int AS n FROM jobs WHERE kind = 'webhook.deliver' AND status <> 'succeeded'`;
        return m.n === PINGS && j.n === 0;
      },
      60_000,
      50,
    );
    const jobs: { status: string; attempts: number }[] = await db!`SELECT status, attempts FROM jobs WHERE kind = 'webhook.deliver'`;
    // One attempt each: no lease was lost, no job repeated.
    expect(jobs.length).toBeGreaterThanOrEqual(PING_ACCOUNTS);
    expect(jobs.every((j) => j.status === "succeeded" && j.attempts === 1)).toBe(true);
    const [logged] = await db!`SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id WHERE m.event = 'ping'`;
    expect(logged.n).toBe(PINGS);

    const pings = deliveries.filter((d) => d.event === "ping");
    const perId = new Map<string, number>();
    for (const d of pings) perId.set(d.webhookId, (perId.get(d.webhookId) ?? 0) + 1);
    expect(pings.length).toBe(PINGS);
    expect(new Set(perId.keys())).toEqual(expected);
    expect([...perId.values()].every((n) => n === 1)).toBe(true);

    // Every delivery was made under a lease, on its first attempt, and the work was shared.
    expect(pings.every((d) => d.owner !== null && d.attempt === 1)).toBe(true);
    const perInstance = new Map<string, number>();
    for (const d of pings) {
      const i = instanceOf(d.owner!);
      perInstance.set(i.name, (perInstance.get(i.name) ?? 0) + 1);
    }
    console.log(`ping deliveries per instance: ${JSON.stringify(Object.fromEntries([...perInstance].sort()))}`);
    expect(perInstance.size).toBeGreaterThan(1);

    const messages: { status: string; n: number }[] =
      await db!`SELECT status, count(*)::int AS n FROM webhook_messages WHERE event = 'ping' GROUP BY status`;
    expect(messages).toEqual([{ status: "delivered", n: PINGS }]);
  }, 90_000);

  test("SIGKILL mid-render: another instance finishes the video, charges once, and video.completed arrives once per attempt with one webhook-id", async () => {
    const base = instances[0]!.base;
    const token = await newAccount(base, 20);
    const product = await api<{ id: string }>(base, "POST", "/v1/products", token, { name: "Disc", image_url: images!.url("/p.png") });
    expect(product.status).toBe(201);
    await until("the cut-out", async () => (await api(base, "GET", `/v1/products/${product.body.id}`, token)).body.dekupe.status === "ready");
    const template = await api<{ credits: number }>(base, "GET", `/v1/templates/${TEMPLATE}`, token);
    const credits = template.body.credits;
    expect(credits).toBeGreaterThan(0);

    // Hold the first video.completed delivery open until its deliverer has been killed.
    let firstCompleted!: (d: Delivery) => void;
    const completedSeen = new Promise<Delivery>((resolve) => (firstCompleted = resolve));
    let held = 0;
    holdCompleted = (d) => {
      if (held++ > 0) return Promise.resolve(200);
      firstCompleted(d);
      return new Promise<number>(() => {}); // never answered: its caller dies first
    };

    const hook = `http://127.0.0.1:${receiver!.port}/video`;
    const created = await api<{ id: string; status: string }>(base, "POST", "/v1/videos", token, {
      template_id: TEMPLATE,
      product_id: product.body.id,
      language: "en",
      webhook_url: hook,
    });
    expect(created.status).toBe(202);
    const videoId = created.body.id;
    const renderPayload = JSON.stringify({ videoId });

    // Mid-render: the job is leased and ffmpeg has reported progress past 0 %, but the video is not done.
    const lease = await until(
      "the render to be under way",
      async () => {
        const [row] = await db!`SELECT j.id, j.lease_owner, j.attempts, v.progress, v.status AS video_status
          FROM jobs j JOIN videos v ON v.id = ${videoId}
          WHERE j.kind = 'video.render' AND j.status = 'running' AND j.payload = ${renderPayload}`;
        return row && row.progress > 0 && row.progress < 100 && row.video_status === "processing" ? row : undefined;
      },
      30_000,
      10,
    );
    const renderer = instanceOf(lease.lease_owner);
    await kill(renderer);
    const [after] = await db!`SELECT status, progress FROM videos WHERE id = ${videoId}`;
    expect(after.status).toBe("processing"); // killed before it could finish
    console.log(`render job ${lease.id}: instance ${renderer.name} killed at ${after.progress} %`);

    // A survivor rescues the job (maintenance) and renders the video; its completion emits video.completed, whose
    // first delivery we hold open and whose deliverer we kill in turn.
    const first = await until("the first video.completed delivery", () => Promise.race([completedSeen, Bun.sleep(25).then(() => undefined)]), 45_000, 0);
    expect(first.owner).not.toBeNull();
    expect(first.attempt).toBe(1);
    const deliverer = instanceOf(first.owner!);
    expect(deliverer).not.toBe(renderer);
    const [message] = await db!`SELECT account_id FROM webhook_messages WHERE id = ${first.webhookId}`;
    const [webhookJob] = await db!`SELECT id FROM jobs WHERE kind = 'webhook.deliver' AND status = 'running' AND lease_owner = ${first.owner}
      AND payload = ${JSON.stringify({ accountId: message.account_id })}`;
    await kill(deliverer);

    // The last instance delivers it again: same message, same webhook-id, attempt 2.
    const second = await until("the redelivery", () => deliveries.filter((d) => d.event === "video.completed")[1], 30_000);
    const survivor = live()[0]!;
    expect(live()).toHaveLength(1);
    expect(second.webhookId).toBe(first.webhookId);
    expect(second.attempt).toBe(2);
    expect(instanceOf(second.owner!)).toBe(survivor);
    await until("the message to be recorded as delivered", async () => {
      const [m] = await db!`SELECT status FROM webhook_messages WHERE id = ${first.webhookId}`;
      return m.status === "delivered";
    });
    // The account's delivery job, rescued and run again: it ends once a last look finds nothing more due.
    const wj = await until("the delivery job to end", async () => {
      const [j] = await db!`SELECT status, attempts FROM jobs WHERE id = ${webhookJob.id}`;
      return j.status === "running" ? undefined : j;
    });
    expect(wj).toEqual({ status: "succeeded", attempts: 2 });
    // Exactly one arrival per attempt, and one video.completed message for the video.
    expect(deliveries.filter((d) => d.event === "video.completed")).toHaveLength(2);
    const messages = await db!`SELECT id FROM webhook_messages WHERE video_id = ${videoId} AND event = 'video.completed'`;
    expect(messages.map((m: { id: string }) => m.id)).toEqual([first.webhookId]);

    // The render: rescued after the kill and done on the second attempt, by an instance that was not killed first.
    const [rj] = await db!`SELECT status, attempts, last_error FROM jobs WHERE id = ${lease.id}`;
    expect(rj.status).toBe("succeeded");
    expect(rj.attempts).toBe(2);
    expect(rj.last_error).toContain(`lease expired: worker ${lease.lease_owner}`);

    const video = await api(survivor.base, "GET", `/v1/videos/${videoId}`, token);
    expect(video.body).toMatchObject({ status: "completed", progress: 100, credits_used: credits, credits_reserved: 0, error: null });
    // The file is in the bucket, once, and its presigned link serves it.
    const keys = (await s3!.keys(bucket)).filter((k) => k.startsWith(`videos/${videoId}/`));
    expect(keys).toHaveLength(2);
    const file = await fetch(video.body.video_url);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(10_000);

    // Charged once: one usage entry, no refund, balance down by the template's price.
    const balance = await api(survivor.base, "GET", "/v1/balance", token);
    expect(balance.body.credits).toBe(20 - credits);
    const ledger = await api<{ data: { amount: number; type: string }[] }>(survivor.base, "GET", "/v1/balance/transactions", token);
    const entries = ledger.body.data.filter((t) => t.type !== "grant");
    expect(entries.map((t) => [t.type, t.amount])).toEqual([["usage", -credits]]);
  }, 90_000);
});
