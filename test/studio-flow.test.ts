// A shop owner's journey through Studio in chromium (issue #22 points 3, 4, 5 and 9), against a real vitrin with the
// ISNet model and the ffmpeg renderer: upload a photo, see its cut-out, Retry and Revert, create a video, watch it
// complete without a reload, play it, see the balance drop; every request stays on the service. The steps run in
// order on one signed-in page, each its own test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { onPostgres } from "./helpers";
import {
  browserRuns,
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
import { waitFor } from "./support/studio-demo";

// One browser and one service for the whole journey. Not on the PostgreSQL passes (test:postgres, test:scale): a minute
// of ISNet and ffmpeg for what the API suites already check on PostgreSQL, while studio-auth.test.ts covers Studio's
// own tables there. (The harness keeps files on local disk on every pass: Studio's CSP loads only from its origin.)
// The hooks belong to the file: its two suites are one journey on one page, in order; skipped, the hooks do nothing.
const suite = onPostgres ? describe.skip : describeBrowser;
const SLOW = 240_000;
const CREDITS = 25;

let server: StudioServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let log: NetworkLog;
let account: { id: string; token: string };
let productId: string;
let videoId: string;

const api = (path: string) => server.api("GET", path, { token: account.token });
const product = async () => (await api(`/v1/products/${productId}`)).body;

/** Waits until an <img> whose src is `url` (as the API gave it) has loaded with real pixels. */
async function imageLoads(url: string) {
  const img = page.locator(`img[src="${url}"], img[src="${new URL(url).pathname}"]`).first();
  await img.waitFor({ timeout: SLOW });
  await page.waitForFunction((el: any) => el.complete && el.naturalWidth > 0, await img.elementHandle(), { timeout: 60_000 });
}

/** The number in the page's "N attempts left" text. */
async function attemptsLeft(): Promise<number> {
  const text = await page.getByText(/attempts? left/).first().textContent();
  const n = text?.match(/(\d+)/);
  if (!n) throw new Error(`no number in "${text}"`);
  return Number(n[1]);
}

/** Picks `option` in the control labelled `label`: a <select>, or a group of radio buttons (a gallery). */
async function choose(label: string, option: string) {
  // Labels may carry a marker after the name, such as "Product (required)".
  const name = new RegExp(`^${label}\\b`);
  const select = page.getByRole("combobox", { name });
  const group = page.getByRole("radiogroup", { name }).or(page.getByRole("group", { name }));
  // The form fills in after its data arrives: wait for either kind of control before asking which one it is.
  await select.or(group).first().waitFor();
  if ((await select.count()) > 0) {
    const wanted = select.locator("option", { hasText: option }).first();
    await wanted.waitFor({ state: "attached" });
    await select.selectOption((await wanted.getAttribute("value"))!);
    return;
  }
  await group.first().getByRole("radio", { name: new RegExp(option) }).first().check();
}

/** Presses Tab (at most 60 times) until the expression about document.activeElement holds. */
async function tabUntil(focused: string) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(`(() => { try { return !!(${focused}); } catch { return false; } })()`)) return;
  }
  throw new Error(`Tab never reached: ${focused}`);
}

/** Sets a marker on the window: still there later means the page was never reloaded in between. */
const mark = () => page.evaluate(`window.__studioNoReload = true`);
const marked = async () => (await page.evaluate(`window.__studioNoReload === true`)) === true;

/** From now on, notes on the window whether a <progress> bar was ever on the page (a render's live progress). */
const watchProgress = () =>
  page.evaluate(`new MutationObserver(() => {
    if (document.querySelector("progress")) window.__studioSawProgress = true;
  }).observe(document.body, { childList: true, subtree: true, attributes: true })`);
const sawProgress = async () => (await page.evaluate(`window.__studioSawProgress === true`)) === true;

beforeAll(async () => {
  if (onPostgres || !browserRuns) return;
  [server, browser] = await Promise.all([startStudioServer(), launchChromium()]);
  account = await server.newAccount({ name: "Journey shop", credits: CREDITS });
  ({ context, page, log } = await openContext(browser, server.base));
  await signInWithToken(page, account.token);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

suite("Studio: a shop owner's product in chromium (upload, cut-out, Retry, Revert)", () => {
  test("`Image`, `Name` and `Create product` upload a photo; its ISNet cut-out shows up without a reload", async () => {
    await page.getByRole("link", { name: "Products", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    await mark();
    await page.getByLabel(/^Image\b/).setInputFiles(fixturePhoto("coffee.jpg"));
    await page.getByLabel(/^Name\b/).fill("Coffee to go");
    await page.getByRole("button", { name: "Create product", exact: true }).click();

    const list = await waitFor(() => api("/v1/products"), (res) => res.body?.data?.length === 1, 30_000);
    productId = list.body.data[0].id;
    expect(list.body.data[0].name).toBe("Coffee to go");
    await page.getByRole("link", { name: /Coffee to go/ }).first().waitFor();
    if (!new URL(page.url()).pathname.startsWith(`/products/${productId}`)) {
      await page.getByRole("link", { name: /Coffee to go/ }).first().click();
      await page.waitForURL(`**/products/${productId}`);
    }
    const ready = await waitFor(product, (p) => p.dekupe.status !== "processing", SLOW);
    expect(ready.dekupe.status).toBe("ready");
    await imageLoads(ready.image_url);
    expect(await marked()).toBe(true);
  }, SLOW);

  test("`Retry` makes another attempt: one attempt fewer left, and the new cut-out loads", async () => {
    const before = await product();
    const left = await attemptsLeft();
    expect(left).toBe(before.dekupe.retries_left);
    await page.getByRole("button", { name: "Retry", exact: true }).click();
    const after = await waitFor(product, (p) => p.dekupe.attempts === before.dekupe.attempts + 1 && p.dekupe.status === "ready", SLOW);
    expect(after.image_url).not.toBe(before.image_url);
    await imageLoads(after.image_url);
    await waitFor(attemptsLeft, (n) => n === left - 1, 30_000);
  }, SLOW);

  test("`Use the original photo` puts the original photo back as the product's image, and says how to bring a cut-out back", async () => {
    await page.getByRole("button", { name: "Use the original photo", exact: true }).click();
    await page.getByText("The original photo is in use again, without a cut-out.").waitFor();
    const reverted = await waitFor(product, (p) => p.dekupe.status === "off", 30_000);
    expect(reverted.image_url).toBe(reverted.original_image_url);
    await imageLoads(reverted.original_image_url);
  }, SLOW);

});

suite("Studio: a shop owner's video in chromium (create, watch, play, pay)", () => {
  test("`Create video`: `Product` and `Template` chosen, the cost in credits shown, then its progress and completion show up without a reload", async () => {
    await page.getByRole("link", { name: "Videos", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Videos" }).waitFor();
    await page.getByRole("link", { name: "Create video" }).or(page.getByRole("button", { name: "Create video" })).first().click();
    await page.waitForURL("**/videos/new");
    await choose("Product", "Coffee to go");
    await choose("Template", "Clean card");
    // The estimate is a live region that names the template's cost (the gallery's own prices are not one).
    const cost = (await api("/v1/templates/clean-card")).body.credits;
    await page.locator("main [aria-live]").filter({ hasText: new RegExp(`(^|\\D)${cost}\\s+credits?\\b`) }).first().waitFor();
    await mark();
    await watchProgress();
    await page.getByRole("button", { name: "Create video", exact: true }).click();

    const listed = await waitFor(() => api("/v1/videos"), (res) => res.body?.data?.length === 1, 30_000);
    videoId = listed.body.data[0].id;
    await page.waitForURL((url) => url.pathname !== "/videos/new");
    if (!new URL(page.url()).pathname.startsWith(`/videos/${videoId}`)) {
      await page.locator(`a[href$="/videos/${videoId}"]`).first().click();
      await page.waitForURL(`**/videos/${videoId}`);
    }
    await page.locator("video").waitFor({ timeout: SLOW });
    expect((await api(`/v1/videos/${videoId}`)).body.status).toBe("completed");
    expect(await marked()).toBe(true);
    expect(await sawProgress()).toBe(true);
  }, SLOW);

  test("the completed video plays in the page: readyState ≥ 2 and the duration the API reports; `Download` and the thumbnail offered", async () => {
    const video = (await api(`/v1/videos/${videoId}`)).body;
    const element = page.locator("video").first();
    await element.evaluate((v: any) => {
      v.muted = true;
      return v.play();
    });
    await page.waitForFunction(`document.querySelector("video").readyState >= 2`, undefined, { timeout: 60_000 });
    const duration = await element.evaluate((v: any) => v.duration);
    expect(Math.abs(duration - video.duration)).toBeLessThan(0.25);
    // The file the API gives out, asked for under a name of the product and template (`?download=`).
    const href = await page.getByRole("link", { name: "Download" }).first().getAttribute("href");
    expect(new URL(href!, server.base).pathname).toBe(new URL(video.video_url).pathname);
    // The thumbnail is offered too: as the player's poster or a link of its own, from the API's thumbnail_url.
    const thumb = new URL(video.thumbnail_url).pathname;
    expect(await page.locator(`main [poster$="${thumb}"], main a[href$="${thumb}"], main img[src$="${thumb}"]`).count()).toBeGreaterThan(0);
  }, SLOW);

  test("`Balance` shows the credits left after the video's cost", async () => {
    const balance = (await api("/v1/balance")).body.credits;
    expect(balance).toBe(CREDITS - 1);
    await page.getByRole("link", { name: "Balance", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Balance" }).waitFor();
    await waitFor(async () => (await page.getByTestId("credits").textContent())?.trim(), (shown) => shown === String(balance), 30_000);
  }, SLOW);

  test("by keyboard alone: Tab and Enter to `Create video`, the next template with an arrow key, Enter on the form's button", async () => {
    await tabUntil(`document.activeElement.textContent.trim() === "Videos"`);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Videos" }).waitFor();
    await tabUntil(`document.activeElement.textContent.trim() === "Create video"`);
    await page.keyboard.press("Enter");
    await page.waitForURL("**/videos/new");
    await page.locator('input[type="radio"]:checked').waitFor();
    await tabUntil(`document.activeElement.type === "radio"`);
    const first = await page.evaluate(`document.activeElement.value`);
    await page.keyboard.press("ArrowRight");
    const chosen = String(await page.evaluate(`document.querySelector('input[type="radio"]:checked').value`));
    expect(chosen).not.toBe(first);
    const cost = (await api(`/v1/templates/${chosen}`)).body.credits;
    await page.locator("main [aria-live]").filter({ hasText: new RegExp(`(^|\\D)${cost}\\s+credits?\\b`) }).first().waitFor();
    await tabUntil(`document.activeElement.tagName === "BUTTON" && document.activeElement.textContent.trim() === "Create video"`);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => /^\/videos\/vid_/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await api(`/v1/videos/${id}`)).body.template_id).toBe(chosen);
  }, SLOW);

  test("every request of the journey went to the service itself, and the CSP refused nothing", () => {
    expect(log.requests.some((url) => url.includes("/files/videos/"))).toBe(true);
    expect(foreignRequests(log, server.base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
    expect(context.pages().length).toBe(1);
  });
});
