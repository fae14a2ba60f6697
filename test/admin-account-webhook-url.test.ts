// PATCH /v1/admin/accounts/:id vets `webhook_url` as PUT /v1/webhooks/endpoint vets its `url` (scheme, private and
// metadata addresses, VITRIN_WEBHOOK_ALLOW_HOSTS), so no URL is stored that every later event would be lost to; the
// admin account shows the URL it stores.
import { afterEach, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

/** Public-only outbound rules, with hooks.internal on loopback named as a trusted host and shop.example public. */
async function setup() {
  const resolve = async (host: string) => {
    const name = host.replace(/\.$/, "");
    return name === "hooks.internal" ? ["127.0.0.1"] : name === "shop.example" ? ["93.184.216.34"] : [];
  };
  t = await startService({ VITRIN_ALLOW_PRIVATE_NETWORKS: "false", VITRIN_WEBHOOK_ALLOW_HOSTS: "hooks.internal" }, { resolve });
  const acct = await t.newAccount();
  const patch = (webhook_url: unknown) => t.json("PATCH", `/v1/admin/accounts/${acct.id}`, { token: ADMIN_TOKEN, body: { webhook_url } });
  const endpoint = (url: unknown) => t.json("PUT", "/v1/webhooks/endpoint", { token: acct.token, body: { url } });
  return { acct, patch, endpoint };
}

describe("webhook_url on PATCH /v1/admin/accounts/:id", () => {
  /** Each URL is refused by both routes with the same reason, and the account keeps no webhook URL. */
  async function refusedLikeEndpoint(urls: string[]) {
    const { acct, patch, endpoint } = await setup();
    for (const url of urls) {
      const res = await patch(url);
      const same = await endpoint(url);
      expect([res.status, same.status]).toEqual([422, 422]);
      expect(res.body.details).toEqual([{ field: "webhook_url", message: same.body.details[0].message }]);
    }
    expect((await t.json("GET", `/v1/admin/accounts/${acct.id}`, { token: ADMIN_TOKEN })).body.webhook_url).toBe(null);
  }

  test("a URL that is not http(s) is a 422 naming webhook_url, as PUT /v1/webhooks/endpoint answers it", async () => {
    await refusedLikeEndpoint(["not a url", "ftp://x", "javascript:alert(1)"]);
  });

  // TODO(lead): needs src/service.ts to pass the service's checkUrl: `.use(adminRoutes(guard, accounts, checkUrl))`
  // (.scratch/fix-api/service-wiring.patch); then make this a plain test. Without it only the URL's form is checked.
  test("a private, metadata or unresolvable address is a 422 naming webhook_url, as PUT /v1/webhooks/endpoint answers it", async () => {
    await refusedLikeEndpoint(["http://169.254.169.254/latest/meta-data", "http://127.0.0.1:9/hook", "http://nowhere.example/hook"]);
  });

  test("\"\" is a 422 saying a URL or null is expected", async () => {
    const { patch } = await setup();
    const res = await patch("");
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: "webhook_url", message: "must be an http or https URL, or null to clear it" }]);
  });

  test("a public URL, or a private one on a host VITRIN_WEBHOOK_ALLOW_HOSTS names, is stored and shown; null clears it", async () => {
    const { acct, patch } = await setup();
    const set = await patch("https://shop.example/hooks");
    expect([set.status, set.body.webhook_url]).toEqual([200, "https://shop.example/hooks"]);
    const trusted = await patch("http://hooks.internal:8080/hook");
    expect([trusted.status, trusted.body.webhook_url]).toEqual([200, "http://hooks.internal:8080/hook"]);
    expect((await t.json("GET", "/v1/webhooks/endpoint", { token: acct.token })).body.url).toBe("http://hooks.internal:8080/hook");
    const cleared = await patch(null);
    expect([cleared.status, cleared.body.webhook_url]).toEqual([200, null]);
  });

  test("the admin account JSON shows the stored webhook_url in the list and on create", async () => {
    const { acct, endpoint } = await setup();
    await endpoint("https://shop.example/hooks");
    const list = await t.json("GET", "/v1/admin/accounts", { token: ADMIN_TOKEN });
    expect(list.body.data.find((a: { id: string }) => a.id === acct.id).webhook_url).toBe("https://shop.example/hooks");
    const made = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { name: "New" } });
    expect(made.body.account.webhook_url).toBe(null);
  });

  test("POST /v1/admin/accounts takes no webhook_url: it is a 422 naming the field, not stored unchecked", async () => {
    await setup();
    const res = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { name: "New", webhook_url: "ftp://x" } });
    expect([res.status, res.body.details]).toEqual([422, [{ field: "webhook_url", message: "is not a known field" }]]);
  });
});
