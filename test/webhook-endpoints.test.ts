// Webhook endpoints per account: the CRUD routes, strict input and URL vetting, and real loopback receivers getting
// the events they subscribed to, signed with their own secret (through rotation), while the account secret does not verify.
import { afterEach, describe, expect, test } from "bun:test";
import { verify } from "../src/webhooks";
import { ADMIN_TOKEN, productPhoto, startService, type TestService } from "./helpers";

type Received = { headers: Headers; body: string };

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

let t: TestService;
const open: ReturnType<typeof receiver>[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) r.close();
  await t?.close();
});

function newReceiver() {
  const r = receiver();
  open.push(r);
  return r;
}

const signedWith = (secret: string, got: Received) =>
  verify(
    secret,
    { id: got.headers.get("webhook-id")!, timestamp: got.headers.get("webhook-timestamp")!, signature: got.headers.get("webhook-signature")! },
    got.body,
    Math.floor(t.clock.now() / 1000),
  );

const types = (r: ReturnType<typeof receiver>) => r.received.map((g) => JSON.parse(g.body).type);

async function setup(env: Record<string, string> = {}) {
  t = await startService(env);
  return t.newAccount({ credits: 10 });
}

async function paidTopUp(token: string) {
  const top = await t.json("POST", "/v1/balance/top-up", { token, body: { amount: 1000, currency: "usd" } });
  expect((await t.json("POST", `/v1/admin/top-ups/${top.body.id}/complete`, { token: ADMIN_TOKEN })).status).toBe(200);
}

describe("webhook endpoint routes", () => {
  test("create shows the secret once; get, list, patch and delete behave", async () => {
    const a = await setup();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/hook", events: ["video.completed"], description: "CRM" } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ object: "webhook_endpoint", url: "http://127.0.0.1:9/hook", events: ["video.completed"], description: "CRM", enabled: true });
    expect(c.body.id).toMatch(/^we_/);
    expect(c.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const got = await t.json("GET", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const p = await t.json("PATCH", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token, body: { events: ["*"], enabled: false } });
    expect(p.body).toMatchObject({ events: ["*"], enabled: false, description: "CRM" });
    const list = await t.json("GET", "/v1/webhook_endpoints", { token: a.token });
    expect(list.body).toMatchObject({ data: [{ id: c.body.id, events: ["*"] }], has_more: false });
    expect((await t.json("DELETE", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token })).body).toEqual({ id: c.body.id, object: "webhook_endpoint", deleted: true });
    expect((await t.json("GET", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token })).status).toBe(404);
  });

  test("another account's endpoint is a 404", async () => {
    const a = await setup();
    const b = await t.newAccount();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/hook", events: ["*"] } });
    expect((await t.json("GET", `/v1/webhook_endpoints/${c.body.id}`, { token: b.token })).status).toBe(404);
    expect((await t.json("DELETE", `/v1/webhook_endpoints/${c.body.id}`, { token: b.token })).status).toBe(404);
  });

  test.each([
    ["an unknown event", { url: "http://127.0.0.1:9/h", events: ["video.exploded"] }, "events"],
    ["no events", { url: "http://127.0.0.1:9/h", events: [] }, "events"],
    ['"*" beside others', { url: "http://127.0.0.1:9/h", events: ["*", "balance.low"] }, "events"],
    ["an unknown field", { url: "http://127.0.0.1:9/h", events: ["*"], secret: "mine" }, "secret"],
    ["a non-URL", { url: "not a url", events: ["*"] }, "url"],
  ])("%s is a 422 naming the field", async (_label, body, field) => {
    const a = await setup();
    const res = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Validation failed");
    expect(JSON.stringify(res.body.details)).toContain(field);
  });

  test("an unknown event's 422 lists the known ones and says \"*\" takes them all", async () => {
    const a = await setup();
    const res = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/h", events: ["video.done"] } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].message).toContain('Unknown event "video.done"; known: video.completed');
    expect(res.body.details[0].message).toContain('or ["*"] alone for every event');
  });

  test("a private address is refused when private networks are not allowed", async () => {
    const a = await setup({ VITRIN_ALLOW_PRIVATE_NETWORKS: "false" });
    const res = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/hook", events: ["*"] } });
    expect(res.status).toBe(422);
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "https://93.184.215.14/hook", events: ["*"] } });
    expect(c.status).toBe(201);
    const p = await t.json("PATCH", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token, body: { url: "http://10.0.0.1/hook" } });
    expect(p.status).toBe(422);
  });

  test("an empty PATCH is a 422 that names the body, not a blank field", async () => {
    const a = await setup();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "https://93.184.215.14/hook", events: ["*"] } });
    const p = await t.json("PATCH", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token, body: {} });
    expect(p.status).toBe(422);
    expect(p.body.details.map((d: { field: string }) => d.field)).toEqual(["body"]);
  });

  test("an account has at most 16 endpoints", async () => {
    const a = await setup();
    for (let i = 0; i < 16; i++) {
      expect((await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: `http://127.0.0.1:9/h${i}`, events: ["*"] } })).status).toBe(201);
    }
    const res = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/h16", events: ["*"] } });
    expect(res.status).toBe(403);
  });
});

describe("delivery to endpoints", () => {
  test("each subscribed, enabled endpoint gets the event signed with its own secret", async () => {
    const a = await setup();
    const all = newReceiver();
    const topUps = newReceiver();
    const videos = newReceiver();
    const off = newReceiver();
    const make = (url: string, events: string[], enabled = true) =>
      t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url, events, enabled } }).then((r) => r.body.secret as string);
    const allSecret = await make(all.url, ["*"]);
    const topSecret = await make(topUps.url, ["balance.topped_up"]);
    await make(videos.url, ["video.completed"]);
    await make(off.url, ["*"], false);
    await paidTopUp(a.token);
    const image_url = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
    await t.json("POST", "/v1/products", { token: a.token, body: { name: "Mug", image_url } });
    await t.runJobs();
    expect(types(all).sort()).toEqual(["balance.topped_up", "product.dekupe.completed"]);
    expect(types(topUps)).toEqual(["balance.topped_up"]);
    expect(videos.received).toHaveLength(0);
    expect(off.received).toHaveLength(0);
    const accountSecret = (await t.json("GET", "/v1/webhooks/secret", { token: a.token })).body.secret as string;
    for (const got of all.received) {
      expect(signedWith(allSecret, got)).toBe(true);
      expect(signedWith(accountSecret, got)).toBe(false);
    }
    expect(signedWith(topSecret, topUps.received[0])).toBe(true);
    expect(signedWith(allSecret, topUps.received[0])).toBe(false);
    // The log names the endpoint each message went to.
    const log = await t.json("GET", "/v1/webhooks/deliveries", { token: a.token });
    expect(log.body.data.every((m: { endpoint_id: string | null }) => m.endpoint_id?.startsWith("we_"))).toBe(true);
  });

  test("after a rotation both the new and the old secret verify, and the old one stops after 24 h", async () => {
    const a = await setup();
    const r = newReceiver();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: r.url, events: ["*"] } });
    const rotated = await t.json("POST", `/v1/webhook_endpoints/${c.body.id}/rotate_secret`, { token: a.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(c.body.secret);
    expect(rotated.body.previous_expires_at).toBe(new Date(t.clock.now() + 24 * 3600 * 1000).toISOString());
    await paidTopUp(a.token);
    await t.runJobs();
    expect(signedWith(rotated.body.secret, r.received[0])).toBe(true);
    expect(signedWith(c.body.secret, r.received[0])).toBe(true);
    t.clock.advance(24 * 3600 * 1000 + 1000);
    await paidTopUp(a.token);
    await t.runJobs();
    expect(r.received).toHaveLength(2);
    expect(signedWith(rotated.body.secret, r.received[1])).toBe(true);
    expect(signedWith(c.body.secret, r.received[1])).toBe(false);
  });

  test("a video event goes to the video's webhook_url (account secret) and to subscribed endpoints (their own)", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 50 });
    const perVideo = newReceiver();
    const failedOnly = newReceiver();
    const completedOnly = newReceiver();
    const make = (url: string, events: string[]) => t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url, events } }).then((r) => r.body.secret as string);
    const endpointSecret = await make(failedOnly.url, ["video.failed"]);
    await make(completedOnly.url, ["video.completed"]);
    const image_url = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
    const product = await t.json("POST", "/v1/products", { token: a.token, body: { name: "Mug", image_url, dekupe: false } });
    const templates = (await t.json("GET", "/v1/templates", { token: a.token })).body.data as { id: string; premium: boolean }[];
    const template = templates.find((x) => !x.premium)!;
    const v = await t.json("POST", "/v1/videos", { token: a.token, body: { template_id: template.id, product_id: product.body.id, webhook_url: perVideo.url } });
    expect(v.status).toBe(202);
    // The product goes before the render runs, so the video fails (and is refunded) without rendering.
    await t.json("DELETE", `/v1/products/${product.body.id}`, { token: a.token });
    await t.runJobs();
    expect(types(perVideo)).toEqual(["video.failed"]);
    expect(types(failedOnly)).toEqual(["video.failed"]);
    expect(completedOnly.received).toHaveLength(0);
    const accountSecret = (await t.json("GET", "/v1/webhooks/secret", { token: a.token })).body.secret as string;
    expect(signedWith(accountSecret, perVideo.received[0])).toBe(true);
    expect(signedWith(endpointSecret, failedOnly.received[0])).toBe(true);
    expect(signedWith(accountSecret, failedOnly.received[0])).toBe(false);
    expect(JSON.parse(failedOnly.received[0].body).data.id).toBe(v.body.id);
  });

  /** An endpoint for balance.topped_up that has received one message: its receiver, the endpoint and the message id. */
  async function oneDelivered() {
    const a = await setup();
    const r = newReceiver();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: r.url, events: ["balance.topped_up"] } });
    await paidTopUp(a.token);
    await t.runJobs();
    return { a, r, c, id: r.received[0].headers.get("webhook-id")! };
  }

  test("a message to an endpoint is redelivered with the same id and the endpoint's secret", async () => {
    const { a, r, c, id } = await oneDelivered();
    expect((await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: a.token })).status).toBe(202);
    await t.runJobs();
    expect(r.received).toHaveLength(2);
    expect(r.received[1].headers.get("webhook-id")).toBe(id);
    expect(signedWith(c.body.secret, r.received[1])).toBe(true);
  });

  test("a message to an endpoint deleted since cannot be redelivered: 409, and nothing is sent", async () => {
    const { a, r, c, id } = await oneDelivered();
    await t.json("DELETE", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token });
    const res = await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: a.token });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("deleted");
    await t.runJobs();
    expect(r.received).toHaveLength(1);
  });

  test("deleting an endpoint gives up on its waiting messages", async () => {
    const a = await setup();
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: a.token, body: { url: "http://127.0.0.1:9/hook", events: ["*"] } });
    await paidTopUp(a.token);
    await t.json("DELETE", `/v1/webhook_endpoints/${c.body.id}`, { token: a.token });
    await t.runJobs();
    const log = await t.json("GET", "/v1/webhooks/deliveries", { token: a.token });
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ event: "balance.topped_up", status: "failed", attempts: [] });
  });
});
