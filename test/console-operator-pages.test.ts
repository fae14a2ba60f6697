// Studio's operator pages in chromium against a real vitrin (issue #22 point 7), signed in with the admin token:
// Create account with its first token shown once, Grant credits, a Login link that signs a fresh browser in once,
// tokens listed, issued and revoked from a table, dead jobs filtered and retried, the Jobs summary by kind and the
// table's fit at 1280 and 375 px, and the Health page's checks and counts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import {
  axeViolations,
  describeBrowser,
  launchChromium,
  openContext,
  scrollWidth,
  signInWithToken,
  startStudioServer,
  STUDIO_ADMIN_TOKEN,
  type StudioServer,
} from "./support/browser";
import { waitFor } from "./support/studio-demo";

const SLOW = 120_000;
const FAILING_KIND = "test.fails_once";

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };

const admin = (method: string, path: string, body?: unknown) => server.api(method, path, { token: STUDIO_ADMIN_TOKEN, body });
const statusWith = async (token: string) => (await server.api("GET", "/v1/balance", { token })).status;

/** A job that fails at its one attempt: it goes dead, which is what `Retry job` is for (re-driven, it succeeds). */
async function deadJob(): Promise<string> {
  const { jobs, db } = server.service;
  const { id } = await db.tx((tx) => jobs.enqueue(tx, FAILING_KIND, { why: "test" }));
  await waitFor(() => admin("GET", `/v1/admin/jobs/${id}`), (r) => r.body.status === "dead", 30_000);
  return id;
}

async function openAccount() {
  await page.goto(`/admin/accounts/${account.id}`);
  await page.getByRole("heading", { level: 1, name: "Operator shop" }).waitFor();
}

describeBrowser("Studio: the operator's pages in chromium", () => {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer({ backgroundRemoval: "none" }), launchChromium()]);
    // Fails a job's first run (so it goes dead) and lets a re-driven one succeed.
    const failedOnce = new Set<string>();
    server.service.jobs.register(FAILING_KIND, async (job) => {
      if (failedOnce.has(job.id)) return;
      failedOnce.add(job.id);
      throw new Error("upstream answered 502");
    }, { maxAttempts: 1 });
    account = await server.newAccount({ name: "Operator shop", credits: 7 });
    ({ page } = await openContext(browser, server.base));
    await signInWithToken(page, STUDIO_ADMIN_TOKEN);
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("`Create account` makes the account and shows its first token once, which works", async () => {
    await page.getByRole("link", { name: "Accounts", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Accounts" }).waitFor();
    await page.getByLabel(/^Name\b/).fill("Çiçek evi");
    await page.getByLabel(/^Credits\b/).fill("40");
    await page.getByLabel(/^Account language\b/).fill("tr");
    await page.getByRole("button", { name: "Create account" }).click();
    const token = await page.getByLabel("Its first API token").inputValue();
    const balance = await server.api("GET", "/v1/balance", { token });
    expect(balance.body).toMatchObject({ credits: 40, language: "tr" });
    await page.getByRole("link", { name: "Çiçek evi", exact: true }).waitFor();
  }, SLOW);

  test("`Grant credits` adds to the account's balance and the page shows the new credits", async () => {
    await openAccount();
    await page.getByLabel(/^Amount\b/).fill("15");
    await page.getByLabel(/^Description\b/).fill("Welcome bonus");
    await page.getByRole("button", { name: "Grant credits" }).click();
    await page.getByText("15 credits granted; the balance is now 22.").waitFor();
    await waitFor(async () => (await page.getByTestId("account-credits").textContent())?.trim(), (shown) => shown === "22", 10_000);
    const [latest] = (await server.api("GET", "/v1/balance/transactions", { token: account.token })).body.data;
    expect(latest).toMatchObject({ amount: 15, type: "grant", description: "Welcome bonus" });
  }, SLOW);

  test("`Save changes` on an account's page changes its name, language and premium flag", async () => {
    const other = await server.newAccount({ name: "Rename me", language: "en" });
    await page.goto(`/admin/accounts/${other.id}`);
    await page.getByRole("heading", { level: 1, name: "Rename me" }).waitFor();
    const form = page.locator("form", { has: page.getByRole("heading", { name: "Change account" }) });
    await form.getByLabel(/^Name\b/).fill("Renamed shop");
    await form.getByLabel(/^Account language\b/).fill("tr");
    await form.getByLabel(/Premium account/).check();
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Renamed shop" }).waitFor();
    expect((await admin("GET", `/v1/admin/accounts/${other.id}`)).body).toMatchObject({ name: "Renamed shop", language: "tr", is_premium: true });
  }, SLOW);

  test("`Search accounts` narrows the list to the accounts whose name or id matches", async () => {
    await page.goto("/admin/accounts");
    await page.getByRole("link", { name: "Operator shop", exact: true }).waitFor();
    await page.getByLabel(/^Search accounts\b/).fill("operator");
    await waitFor(() => page.locator("tbody tr").count(), (n) => n === 1, 10_000);
    await page.getByLabel(/^Search accounts\b/).fill(account.id);
    await page.getByRole("link", { name: "Operator shop", exact: true }).waitFor();
    expect(await page.locator("tbody tr").count()).toBe(1);
  }, SLOW);

  test("`Confirm payment` of a manual top-up by its id books its credits on the account", async () => {
    const top = await server.api("POST", "/v1/balance/top-up", { token: account.token, body: { amount: 1000, currency: "usd" } });
    const before = (await server.api("GET", "/v1/balance", { token: account.token })).body.credits;
    await page.goto("/admin/accounts");
    await page.getByLabel(/^Top-up id\b/).fill(top.body.id);
    await page.getByRole("button", { name: "Confirm payment" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Confirm payment" }).click();
    await page.getByText(`Top-up ${top.body.id} is paid: ${top.body.credits} credits booked.`).waitFor();
    expect((await server.api("GET", "/v1/balance", { token: account.token })).body.credits).toBe(before + top.body.credits);
  }, SLOW);

  test("`Login link` gives a URL that signs a fresh browser in as the account, once", async () => {
    await openAccount();
    await page.getByRole("button", { name: "Login link" }).click();
    const url = await page.getByLabel("Login link URL").inputValue();
    expect(url.startsWith(`${server.base}/studio/login/`)).toBe(true);
    const first = await openContext(browser, server.base);
    await first.page.goto(url);
    await first.page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    const second = await openContext(browser, server.base);
    await second.page.goto(url);
    await second.page.waitForURL(/\/sign-in/);
    await Promise.all([first.context.close(), second.context.close()]);
  }, SLOW);

  test("`Create token` shows the token once and adds it to the account's token table; its `Revoke` refuses it", async () => {
    await openAccount();
    const table = page.getByRole("region", { name: "API tokens (table)" });
    await table.getByRole("row").filter({ hasText: "default" }).waitFor();
    await page.getByLabel(/^Token name\b/).fill("till");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByLabel(/^New API token \(id tok_/).inputValue();
    expect(await statusWith(token)).toBe(200);
    const listed = (await admin("GET", `/v1/admin/accounts/${account.id}/tokens`)).body.data.find((t: { name: string }) => t.name === "till");
    const row = table.getByRole("row").filter({ hasText: listed.id });
    await row.getByText(listed.hint, { exact: true }).waitFor();
    expect(await table.textContent()).not.toContain(token);
    await row.getByRole("button", { name: `Revoke token till (${listed.hint})` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await page.getByText("Token till was revoked.").waitFor();
    await row.waitFor({ state: "detached" });
    expect(await statusWith(token)).toBe(401);
    expect(await statusWith(account.token)).toBe(200);
    expect(await axeViolations(page)).toEqual([]);
  }, SLOW);

  test("Jobs filtered by `dead` list the dead job with its error; `Retry job` queues it again and it runs", async () => {
    const id = await deadJob();
    await page.getByRole("link", { name: "Jobs", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Jobs" }).waitFor();
    await page.getByLabel(/^Status\b/).selectOption("dead");
    await page.waitForURL(/status=dead/);
    const row = page.getByRole("row").filter({ hasText: id });
    await row.getByText("upstream answered 502").waitFor();
    await row.getByRole("button", { name: /^Retry job/ }).click();
    await page.getByText(`Job ${id} is queued again.`).waitFor();
    const job = await waitFor(() => admin("GET", `/v1/admin/jobs/${id}`), (r) => r.body.status !== "queued" && r.body.status !== "running", 30_000);
    expect(job.body.status).toBe("succeeded");
  }, SLOW);

  test("the Jobs summary counts dead jobs by kind and links to them; the table fits 1280 px and scrolls in its box at 375", async () => {
    await deadJob();
    const dead = (await admin("GET", `/v1/admin/jobs?status=dead&kind=${FAILING_KIND}`)).body.data.length;
    await page.goto("/admin/jobs");
    const summary = page.getByRole("region", { name: "Queued, running and dead by kind (table)" });
    const link = summary.getByRole("row").filter({ hasText: FAILING_KIND }).getByRole("link", { name: new RegExp(`dead jobs of kind ${FAILING_KIND}`, "i") });
    await waitFor(async () => (await link.textContent())?.trim(), (shown) => shown === String(dead), 15_000);
    const retry = page.getByRole("button", { name: /^Retry job/ }).first();
    const [button, box] = await Promise.all([retry.boundingBox(), page.locator(".jobs-table .table-scroll").boundingBox()]);
    expect(button!.x + button!.width).toBeLessThanOrEqual(box!.x + box!.width);
    expect(await axeViolations(page)).toEqual([]);
    await link.click();
    await page.waitForURL((url) => url.searchParams.get("status") === "dead" && url.searchParams.get("kind") === FAILING_KIND);
    await waitFor(() => page.locator(".jobs-table tbody tr").count(), (n) => n === dead, 10_000);
    const narrow = await openContext(browser, server.base, { viewport: { width: 375, height: 800 } });
    await signInWithToken(narrow.page, STUDIO_ADMIN_TOKEN);
    await narrow.page.goto("/admin/jobs");
    const scroller = narrow.page.locator(".jobs-table .table-scroll");
    await scroller.waitFor();
    expect(await scrollWidth(narrow.page)).toBeLessThanOrEqual(375);
    expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await narrow.context.close();
  }, SLOW);

  test("an account's page opened in the operator's session says so and keeps the session (no API call it would refuse)", async () => {
    await page.goto("/balance");
    await page.getByRole("heading", { level: 1, name: "Not available here" }).waitFor();
    await page.getByRole("link", { name: "Go to the start page" }).click();
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(1);
  }, SLOW);

  test("`Health` shows each readiness check by name and the dead jobs' count", async () => {
    await deadJob();
    const dead = (await admin("GET", "/v1/admin/jobs?status=dead")).body.data.length;
    const ready = (await server.api("GET", "/readyz")).body;
    await page.goto("/admin/jobs");
    await page.getByRole("link", { name: "Health", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    for (const name of Object.keys(ready.checks)) await page.getByRole("heading", { level: 3, name: new RegExp(`^${name}`) }).waitFor();
    const card = page.locator("a.stat-link", { hasText: "Jobs: dead" });
    await waitFor(async () => (await card.locator(".stat-value").textContent())?.trim(), (shown) => shown === String(dead), 15_000);
  }, SLOW);
  test("with more accounts than a page, `Next` shows the older ones and `Search accounts` finds one beyond the first page", async () => {
    for (let i = 1; i <= 21; i++) await admin("POST", "/v1/admin/accounts", { name: `Filler ${i}` });
    await page.goto("/admin/accounts");
    await page.getByRole("link", { name: "Filler 21", exact: true }).waitFor();
    expect(await page.locator("tbody tr").count()).toBe(20);
    expect(await page.getByRole("link", { name: "Operator shop", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("link", { name: "Operator shop", exact: true }).waitFor();
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByRole("link", { name: "Filler 21", exact: true }).waitFor();
    await page.getByLabel(/^Search accounts\b/).fill("operator sh");
    await page.getByRole("link", { name: "Operator shop", exact: true }).waitFor();
    await waitFor(() => page.locator("tbody tr").count(), (n) => n === 1, 10_000);
    await page.getByLabel(/^Search accounts\b/).fill("no such account here");
    await page.getByText("No account matches.").waitFor();
  }, SLOW);
});
