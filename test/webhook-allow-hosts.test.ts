// VITRIN_WEBHOOK_ALLOW_HOSTS: an operator lets named webhook receivers sit on private networks while every other
// host, and every image fetch, keeps the public-only rule.
import { afterEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { startService, type TestService } from "./helpers";

let t: TestService;
let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  server?.stop(true);
  server = undefined;
  await t?.close();
});

const received: string[] = [];

/** A loopback receiver, and a service where hooks.internal and other.example both resolve to it. */
async function setup(allowHosts: string) {
  received.length = 0;
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push(await req.text());
      return new Response("ok");
    },
  });
  const resolve = async (host: string) => (["hooks.internal", "other.example"].includes(host.replace(/\.$/, "")) ? ["127.0.0.1"] : []);
  t = await startService({ VITRIN_ALLOW_PRIVATE_NETWORKS: "false", VITRIN_WEBHOOK_ALLOW_HOSTS: allowHosts }, { resolve });
  return { acct: await t.newAccount(), port: server.port };
}

describe("VITRIN_WEBHOOK_ALLOW_HOSTS", () => {
  test("a named host on a private address is accepted and delivered to", async () => {
    const { acct, port } = await setup("hooks.internal");
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: acct.token, body: { url: `http://hooks.internal:${port}/hook`, events: ["*"] } });
    expect(c.status).toBe(201);
    const ping = await t.json("POST", "/v1/webhooks/test", { token: acct.token, body: { url: `http://HOOKS.internal.:${port}/hook` } });
    expect(ping.status).toBe(202);
    await t.runJobs();
    expect(received.map((b) => JSON.parse(b).type)).toEqual(["ping"]);
  });

  test("a host not named stays refused, both when registered and at delivery", async () => {
    const { acct, port } = await setup("hooks.internal");
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: acct.token, body: { url: `http://other.example:${port}/hook`, events: ["*"] } });
    expect(c.status).toBe(422);
    expect(c.body.details[0].field).toBe("url");
    expect((await t.json("PUT", "/v1/webhooks/endpoint", { token: acct.token, body: { url: `http://127.0.0.1:${port}/hook` } })).status).toBe(422);
  });

  test("without the setting the named host is refused", async () => {
    const { acct, port } = await setup("");
    const c = await t.json("POST", "/v1/webhook_endpoints", { token: acct.token, body: { url: `http://hooks.internal:${port}/hook`, events: ["*"] } });
    expect(c.status).toBe(422);
  });

  test("image fetches from a named host stay refused (the setting is for webhooks only)", async () => {
    const { acct, port } = await setup("hooks.internal");
    const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: `http://hooks.internal:${port}/mug.jpg` } });
    expect(p.status).toBe(422);
    expect(received).toHaveLength(0);
  });

  test("an entry that is not a host name is refused at start", () => {
    expect(() => loadConfig({ VITRIN_WEBHOOK_ALLOW_HOSTS: "https://hooks.internal" })).toThrow("is not a host name");
    expect(() => loadConfig({ VITRIN_WEBHOOK_ALLOW_HOSTS: "hooks.internal:8080" })).toThrow("is not a host name");
    expect(loadConfig({ VITRIN_WEBHOOK_ALLOW_HOSTS: " Hooks.Internal. , crm.lan" }).webhookAllowHosts).toEqual(["hooks.internal", "crm.lan"]);
  });
});
