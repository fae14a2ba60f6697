// Account-level events on real loopback receivers: product.dekupe.completed / .failed when a cut-out attempt ends, and
// balance.topped_up when a top-up is paid, each signed and carrying Standard Webhooks' type and timestamp.
import { afterEach, describe, expect, test } from "bun:test";
import { builtinPlugins } from "../plugins";
import { definePlugin } from "../src/plugins";
import { verify } from "../src/webhooks";
import { ADMIN_TOKEN, productPhoto, startService, type TestService } from "./helpers";

type Received = { headers: Headers; body: string };

/** A receiver on loopback that answers 200 and keeps what it got. */
function receiver() {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({ headers: req.headers, body: await req.text() });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, received, close: () => server.stop(true) };
}

/** A background-removal plugin whose every cut-out fails (a model that finds nothing). */
function refusingRegistry() {
  return builtinPlugins().add(
    definePlugin({
      slot: "background-removal",
      name: "refusing",
      description: "Fails every cut-out (tests).",
      create: () => ({
        slot: "background-removal",
        name: "refusing",
        remove: async () => {
          throw new Error("No product found in the image");
        },
      }),
    }),
  );
}

const dataUrl = async () => `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;

let t: TestService;
let r: ReturnType<typeof receiver> | undefined;
afterEach(async () => {
  r?.close();
  r = undefined;
  await t?.close();
});

/** A service and an account whose account-level webhook URL is a fresh receiver; returns the signing secret. */
async function setup(env: Record<string, string> = {}, opts = {}) {
  t = await startService(env, opts);
  const acct = await t.newAccount({ credits: 10 });
  r = receiver();
  expect((await t.json("PUT", "/v1/webhooks/endpoint", { token: acct.token, body: { url: r.url } })).status).toBe(200);
  const secret = (await t.json("GET", "/v1/webhooks/secret", { token: acct.token })).body.secret as string;
  return { acct, secret };
}

/** The events the receiver got, each checked against its signature. */
function eventsGot(secret: string) {
  return r!.received.map((got) => {
    const h = { id: got.headers.get("webhook-id")!, timestamp: got.headers.get("webhook-timestamp")!, signature: got.headers.get("webhook-signature")! };
    expect(verify(secret, h, got.body, Math.floor(t.clock.now() / 1000))).toBe(true);
    return JSON.parse(got.body);
  });
}

describe("account-level events", () => {
  test("a finished cut-out sends product.dekupe.completed with the product", async () => {
    const { acct, secret } = await setup();
    const created = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: await dataUrl() } });
    expect(created.status).toBe(201);
    await t.runJobs();
    const events = eventsGot(secret);
    expect(events.map((e) => e.type)).toEqual(["product.dekupe.completed"]);
    const [e] = events;
    expect(e).toMatchObject({ event: "product.dekupe.completed", timestamp: e.created_at });
    expect(e.data).toMatchObject({ id: created.body.id, object: "product", name: "Mug", dekupe: { status: "ready" } });
  });

  test("a failed cut-out sends product.dekupe.failed with the product and its error", async () => {
    const { acct, secret } = await setup({ VITRIN_BACKGROUND_REMOVAL: "refusing" }, { registry: refusingRegistry() });
    const created = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: await dataUrl() } });
    await t.runJobs();
    const events = eventsGot(secret);
    expect(events.map((e) => e.type)).toEqual(["product.dekupe.failed"]);
    expect(events[0].data).toMatchObject({ id: created.body.id, dekupe: { status: "failed", error: expect.stringContaining("No product found") } });
  });

  test("a paid top-up sends balance.topped_up once, with amount, credits and the new balance", async () => {
    const { acct, secret } = await setup();
    const top = await t.json("POST", "/v1/balance/top-up", { token: acct.token, body: { amount: 1000, currency: "usd" } });
    expect(top.status).toBe(201);
    expect((await t.json("POST", `/v1/admin/top-ups/${top.body.id}/complete`, { token: ADMIN_TOKEN })).status).toBe(200);
    await t.json("POST", `/v1/admin/top-ups/${top.body.id}/complete`, { token: ADMIN_TOKEN });
    await t.runJobs();
    const events = eventsGot(secret);
    expect(events.map((e) => e.type)).toEqual(["balance.topped_up"]);
    expect(events[0].data).toEqual({ object: "top_up", id: top.body.id, amount: 1000, currency: "usd", credits: 100, balance: 110 });
  });

  test("without an account-level URL nothing is queued", async () => {
    t = await startService();
    const acct = await t.newAccount();
    await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: await dataUrl() } });
    await t.runJobs();
    expect((await t.json("GET", "/v1/webhooks/deliveries", { token: acct.token })).body.data).toEqual([]);
  });
});
