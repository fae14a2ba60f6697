// Studio's Developers page in chromium against a real vitrin (issue #22 point 6): an API token shown once that works
// and is refused once revoked, its last use shown, the webhook secret revealed and rotated, a delivery redelivered, and a webhook
// endpoint added with its secret shown once, disabled and deleted.
import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { describeBrowser, openContext, scrollWidth, signedInSuite, startSession, type StudioServer } from "./support/browser";
import { waitFor } from "./support/studio-demo";

const SLOW = 120_000;

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };

const api = (method: string, path: string, body?: unknown) => server.api(method, path, { token: account.token, body });
const statusWith = async (token: string) => (await server.api("GET", "/v1/balance", { token })).status;

async function openDevelopers() {
  await page.goto("/developers");
  await page.getByRole("heading", { level: 1, name: "Developers" }).waitFor();
}

describeBrowser("Studio: the Developers page in chromium", () => {
  signedInSuite(
    { name: "Developer shop", credits: 10 },
    (s) => void ({ server, browser, page, account } = s),
  );

  test("`Create token` shows the new token once: it works as a bearer token and is gone after a reload", async () => {
    await openDevelopers();
    await page.getByLabel(/^Token name\b/).fill("ci-bot");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByLabel("New API token: ci-bot").inputValue();
    expect(token).toMatch(/^vt_/);
    expect(await statusWith(token)).toBe(200);
    await openDevelopers();
    await page.getByRole("cell", { name: "ci-bot", exact: true }).waitFor();
    expect(await page.content()).not.toContain(token);
  }, SLOW);

  test("a token's `Last used` says `Never` until the token authenticates a request, then when", async () => {
    const made = await api("POST", "/v1/tokens", { name: "nightly" });
    await openDevelopers();
    const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "nightly", exact: true }) });
    // The column's cells carry its name (data-label), which the narrow layout shows beside each value.
    const lastUsed = row.locator('td[data-label="Last used"]');
    expect((await lastUsed.textContent())?.trim()).toBe("Never");
    expect(await statusWith(made.body.token)).toBe(200);
    await server.service.accounts.tokenUseSettled();
    await openDevelopers();
    await row.waitFor();
    const listed = (await api("GET", "/v1/tokens")).body.data.find((t: { id: string }) => t.id === made.body.id);
    expect(listed.last_used_at).not.toBeNull();
    const shown = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" }).format(new Date(listed.last_used_at));
    expect((await lastUsed.textContent())?.trim()).toBe(shown);
  }, SLOW);

  test("`Revoke` after confirming: the token is refused from then on", async () => {
    const made = await api("POST", "/v1/tokens", { name: "old-sync" });
    expect(await statusWith(made.body.token)).toBe(200);
    await openDevelopers();
    await page.getByRole("button", { name: /^Revoke token old-sync/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await page.getByText("Token old-sync was revoked.").waitFor();
    expect(await statusWith(made.body.token)).toBe(401);
    await waitFor(() => page.getByRole("cell", { name: "old-sync", exact: true }).count(), (n) => n === 0, 10_000);
  }, SLOW);

  test("`Reveal secret` shows the account's webhook secret; `Rotate secret` replaces it with the API's new one", async () => {
    await openDevelopers();
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const shown = page.getByLabel("Secret", { exact: true });
    expect(await shown.inputValue()).toBe((await api("GET", "/v1/webhooks/secret")).body.secret);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    await page.getByText(/The secret was rotated/).waitFor();
    const current = (await api("GET", "/v1/webhooks/secret")).body.secret;
    await waitFor(() => shown.inputValue(), (value) => value === current, 10_000);
  }, SLOW);

  test("`Redeliver` sends a message again: the API lists another attempt", async () => {
    const ping = await api("POST", "/v1/webhooks/test", { url: "http://127.0.0.1:9/hook" });
    expect(ping.status).toBe(202);
    const tried = await waitFor(() => api("GET", `/v1/webhooks/deliveries/${ping.body.id}`), (r) => r.body.attempts.length >= 1, 30_000);
    await openDevelopers();
    await page.getByRole("button", { name: new RegExp(`^Redeliver ping message ${ping.body.id}`) }).click();
    await page.getByText(`Message ${ping.body.id} was queued again.`).waitFor();
    const count = tried.body.attempts.length;
    await waitFor(() => api("GET", `/v1/webhooks/deliveries/${ping.body.id}`), (r) => r.body.attempts.length > count, 30_000);
  }, SLOW);

  test("`Add endpoint` shows the endpoint's secret once, `Rotate secret` a new one; `Disable` turns it off and `Delete` removes it", async () => {
    await openDevelopers();
    await page.getByLabel(/^Endpoint URL\b/).fill("http://127.0.0.1:9/endpoint");
    await page.getByLabel(/^Events\b/).fill("video.completed, video.failed");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.getByLabel("Secret of the new endpoint").inputValue();
    const [endpoint] = (await api("GET", "/v1/webhook_endpoints")).body.data;
    expect(endpoint).toMatchObject({ url: "http://127.0.0.1:9/endpoint", events: ["video.completed", "video.failed"], enabled: true });
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Rotate secret of endpoint http://127.0.0.1:9/endpoint" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await page.getByLabel("New secret of http://127.0.0.1:9/endpoint").inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole("button", { name: "Disable endpoint http://127.0.0.1:9/endpoint" }).click();
    await waitFor(() => api("GET", `/v1/webhook_endpoints/${endpoint.id}`), (r) => r.body.enabled === false, 10_000);
    await page.getByRole("button", { name: "Delete endpoint http://127.0.0.1:9/endpoint" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText("The endpoint was deleted.").waitFor();
    expect((await api("GET", "/v1/webhook_endpoints")).body.data).toHaveLength(0);
  }, SLOW);
  test("at 375 px the tokens stack into cards: every column, `Revoke` included, is on screen without a sideways scroll", async () => {
    await api("POST", "/v1/tokens", { name: "phone-bot" });
    const phone = await openContext(browser, server.base, { viewport: { width: 375, height: 740 } });
    try {
      await startSession(phone.context, server.base, account.token);
      await phone.page.goto("/developers");
      const table = phone.page.getByRole("region", { name: "API tokens (table)" });
      await table.locator("tbody tr").first().waitFor();
      expect(await table.getAttribute("class")).toContain("table-stacks");
      expect(await scrollWidth(phone.page)).toBeLessThanOrEqual(375);
      const revoke = (await phone.page.getByRole("button", { name: /^Revoke token phone-bot/ }).boundingBox())!;
      expect(revoke.x).toBeGreaterThanOrEqual(0);
      expect(revoke.x + revoke.width).toBeLessThanOrEqual(375);
    } finally {
      await phone.context.close();
    }
  }, SLOW);

  test("in Turkish a token never used says `Hiç kullanılmadı` under `Son kullanım`", async () => {
    await api("POST", "/v1/tokens", { name: "unused-bot" });
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await tr.page.goto("/developers");
      const row = tr.page.getByRole("row").filter({ has: tr.page.getByRole("cell", { name: "unused-bot", exact: true }) });
      expect((await row.locator('td[data-label="Son kullanım"]').textContent())?.trim()).toBe("Hiç kullanılmadı");
    } finally {
      await tr.context.close();
    }
  }, SLOW);
});
