// Studio's lists follow work as it happens, without a reload (issue #22 points 3 and 4), in chromium. The server runs
// no worker here: the test holds each job until the page shows it waiting, then runs it, so "the page caught up by
// itself" is certain, not a race with a fast render.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import {
  cspViolations,
  describeBrowser,
  fixturePhoto,
  foreignRequests,
  launchChromium,
  openContext,
  signInWithToken,
  startStudioServer,
  type NetworkLog,
  type StudioServer,
} from "./support/browser";

const SLOW = 120_000;

let server: StudioServer;
let browser: Browser;
let page: Page;
let log: NetworkLog;
let account: { id: string; token: string };

/** Runs every due job to its end in the test's own rounds, as the worker would. */
async function runJobs() {
  const { jobs } = server.service;
  for (let i = 0; i < 20; i++) {
    const claimed = await jobs.tick();
    await jobs.drain();
    if (claimed === 0) return;
  }
}

/** Presses Tab (at most 60 times) until the expression about document.activeElement holds. */
async function tabUntil(focused: string) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(`(() => { try { return !!(${focused}); } catch { return false; } })()`)) return;
  }
  throw new Error(`Tab never reached: ${focused}`);
}

/** Reads an API path as the account until `done` holds for its body (10 s at most). */
async function waitForApi(path: string, done: (body: any) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const { body } = await server.api("GET", path, { token: account.token });
    if (done(body)) return body;
    await Bun.sleep(100);
  }
  throw new Error(`${path} never reached the state waited for`);
}

/** Sets a marker on the window: still there later means the page was never reloaded in between. */
const mark = () => page.evaluate(`window.__studioNoReload = true`);
const marked = async () => (await page.evaluate(`window.__studioNoReload === true`)) === true;

async function createProduct(name: string): Promise<string> {
  const form = new FormData();
  form.append("name", name);
  form.append("image", new File([readFileSync(fixturePhoto("coffee.jpg"))], "coffee.jpg", { type: "image/jpeg" }));
  const res = await server.api("POST", "/v1/products", { token: account.token, form });
  expect(res.status).toBe(201);
  return res.body.id;
}

describeBrowser("Studio: lists that follow work without a reload, in chromium", () => {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer({ backgroundRemoval: "none", worker: false }), launchChromium()]);
    account = await server.newAccount({ name: "Live shop", credits: 10 });
    ({ page, log } = await openContext(browser, server.base));
    await signInWithToken(page, account.token);
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("`Products`: a cut-out still processing shows so, then turns ready on the same page", async () => {
    const id = await createProduct("Waiting cup");
    await page.goto("/products");
    const card = page.locator("li").filter({ has: page.locator(`a[href$="/products/${id}"]`) });
    await card.getByText("Processing", { exact: true }).waitFor();
    await mark();
    await runJobs();
    expect((await server.api("GET", `/v1/products/${id}`, { token: account.token })).body.dekupe.status).toBe("ready");
    await card.getByText("Ready", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await marked()).toBe(true);
  }, SLOW);

  test("a product page by keyboard alone: arrow keys move the before/after slider, Enter on `Retry` starts an attempt the page follows", async () => {
    const product = (await server.api("GET", "/v1/products", { token: account.token })).body.data[0];
    await page.goto(`/products/${product.id}`);
    await page.getByRole("button", { name: "Retry", exact: true }).waitFor();
    await tabUntil(`document.activeElement.type === "range"`);
    const before = await page.evaluate(`document.activeElement.value`);
    for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowLeft");
    expect(await page.evaluate(`document.activeElement.value`)).not.toBe(before);
    await mark();
    await tabUntil(`document.activeElement.tagName === "BUTTON" && document.activeElement.textContent.trim() === "Retry"`);
    await page.keyboard.press("Enter");
    const retried = await waitForApi(`/v1/products/${product.id}`, (p) => p.dekupe.status === "processing");
    expect(retried.dekupe.attempts).toBe(product.dekupe.attempts + 1);
    await page.getByText("Processing", { exact: true }).first().waitFor();
    await runJobs();
    await page.getByText(`${retried.dekupe.retries_left} attempts left`).first().waitFor({ timeout: 30_000 });
    // The attempt ended: the page drops its "Processing" by itself (earlier attempts' "Ready" rows prove nothing).
    await page.getByText("Processing", { exact: true }).first().waitFor({ state: "hidden", timeout: 30_000 });
    expect((await server.api("GET", `/v1/products/${product.id}`, { token: account.token })).body.dekupe.status).toBe("ready");
    expect(await marked()).toBe(true);
  }, SLOW);

  test("`Videos`: a queued video shows so, then reaches Completed with its thumbnail on the same page", async () => {
    const product = (await server.api("GET", "/v1/products", { token: account.token })).body.data[0];
    const body = { template_id: "clean-card", product_id: product.id };
    const ordered = await server.api("POST", "/v1/videos", { token: account.token, body });
    expect(ordered.status).toBe(202);
    await page.goto("/videos");
    const row = page.locator("tr").filter({ has: page.locator(`a[href$="/videos/${ordered.body.id}"]`) });
    await row.getByText("Queued", { exact: true }).waitFor();
    expect(await row.getByRole("progressbar").count()).toBe(1);
    await mark();
    await runJobs();
    await row.getByText("Completed", { exact: true }).waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      (el: any) => [...el.querySelectorAll("img")].some((img: any) => img.complete && img.naturalWidth > 0),
      await row.elementHandle(),
      { timeout: 30_000 },
    );
    expect(await marked()).toBe(true);
  }, SLOW);

  test("every request went to the service itself, and the CSP refused nothing", () => {
    expect(foreignRequests(log, server.base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
  });
});
