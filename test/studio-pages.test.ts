// Every Studio page in chromium (issue #22 point 8): no serious or critical axe-core violations, one <h1> naming the
// page, a <main> and a skip link, landmarks each named apart, no horizontal scroll at 375 px wide, and no request
// leaving the service (the payer's payment page is checked with axe too). Shop pages
// are seen signed in as an account with demo data (a product with its cut-out, a completed video); operator pages
// signed in with the admin token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { onPostgres } from "./helpers";
import {
  axeRuleViolations,
  axeViolations,
  cspViolations,
  describeBrowser,
  foreignRequests,
  launchChromium,
  openContext,
  scrollWidth,
  signInWithToken,
  startSession,
  startStudioServer,
  STUDIO_ADMIN_TOKEN,
  type NetworkLog,
  type StudioServer,
} from "./support/browser";
import { seedDemo, type Demo } from "./support/studio-demo";
import { englishLeft, pageTexts, watchApiData } from "./support/studio-text";

// One browser and one service for every page. Not on the PostgreSQL passes (test:postgres, test:scale): the pages read
// nothing there the API suites do not check on PostgreSQL, and the demo data costs ISNet and ffmpeg time. (The harness
// keeps files on local disk on every pass: Studio's CSP loads only from the service's origin.)
const suite = onPostgres ? describe.skip : describeBrowser;
const SLOW = 240_000;

type Who = "guest" | "account" | "admin";
/** Each page: its heading (the English text of its one <h1>), who sees it, and its path once the demo data exists. */
const PAGES: { name: string; heading: RegExp; who: Who; path: (d: Demo) => string }[] = [
  { name: "sign-in", heading: /^Sign in$/, who: "guest", path: () => "/sign-in" },
  { name: "products", heading: /^Products$/, who: "account", path: () => "/products" },
  { name: "product", heading: /Stoneware coffee cup/, who: "account", path: (d) => `/products/${d.product.id}` },
  { name: "videos", heading: /^Videos$/, who: "account", path: () => "/videos" },
  { name: "new video", heading: /^Create video$/, who: "account", path: () => "/videos/new" },
  { name: "video", heading: /Stoneware coffee cup/, who: "account", path: (d) => `/videos/${d.video.id}` },
  { name: "balance", heading: /^Balance$/, who: "account", path: () => "/balance" },
  { name: "developers", heading: /^Developers$/, who: "account", path: () => "/developers" },
  { name: "admin health", heading: /^Health$/, who: "admin", path: () => "/admin" },
  { name: "admin accounts", heading: /^Accounts$/, who: "admin", path: () => "/admin/accounts" },
  { name: "admin account", heading: /Demo shop/, who: "admin", path: (d) => `/admin/accounts/${d.account.id}` },
  { name: "admin jobs", heading: /^Jobs$/, who: "admin", path: () => "/admin/jobs" },
  // A mistyped address: the browser's navigation gets the Studio, which shows its own page for it (not the API's JSON).
  { name: "not found", heading: /^Page not found$/, who: "account", path: () => "/prodcts" },
];

let server: StudioServer;
let browser: Browser;
let demo: Demo;
const pages = new Map<Who, { context: BrowserContext; page: Page; log: NetworkLog }>();
/** The same visitors with a browser set to Turkish, and the API data each one's page was given. */
const turkish = new Map<Who, { page: Page; log: NetworkLog; data: Set<string> }>();

/** Opens a page as `who` at `width` px and waits for its one <h1>. */
async function visit(who: Who, path: string, heading: RegExp, width = 1280): Promise<Page> {
  const { page } = pages.get(who)!;
  await page.setViewportSize({ width, height: 800 });
  await page.goto(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  // Lists and images fill in after the heading: wait until the network has been quiet for a moment.
  await page.waitForLoadState("networkidle");
  return page;
}

suite("Studio: every page in chromium", () => {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer(), launchChromium()]);
    demo = await seedDemo(server);
    for (const who of ["guest", "account", "admin"] as const) {
      const opened = await openContext(browser, server.base);
      pages.set(who, opened);
      if (who !== "guest") await signInWithToken(opened.page, who === "admin" ? STUDIO_ADMIN_TOKEN : demo.account.token);
      const tr = await openContext(browser, server.base, { locale: "tr-TR" });
      turkish.set(who, { ...tr, data: watchApiData(tr.page) });
      if (who !== "guest") await startSession(tr.context, server.base, who === "admin" ? STUDIO_ADMIN_TOKEN : demo.account.token);
    }
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const p of PAGES) {
    test(`${p.name}: one <h1>, a <main>, a skip link to it, and no serious or critical axe-core violation`, async () => {
      const page = await visit(p.who, p.path(demo), p.heading);
      expect(await page.locator("h1").count()).toBe(1);
      expect(await page.locator("main").count()).toBe(1);
      const skip = page.locator('a[href^="#"]').first();
      const target = (await skip.getAttribute("href"))!.slice(1);
      expect(await page.locator("main").evaluate((main: any, id: string) => main.id === id || !!main.querySelector(`#${id}`), target)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
    }, SLOW);

    test(`${p.name}: one main landmark, and every landmark named apart from the others (axe, whatever the impact)`, async () => {
      const page = await visit(p.who, p.path(demo), p.heading);
      expect(await axeRuleViolations(page, ["landmark-one-main", "landmark-unique", "region"])).toEqual([]);
    }, SLOW);

    test(`${p.name}: the first Tab reaches the skip link, and Enter on it puts the focus in <main>`, async () => {
      const page = await visit(p.who, p.path(demo), p.heading);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(`document.activeElement.tagName === "A" && document.activeElement.getAttribute("href").startsWith("#")`)).toBe(true);
      await page.keyboard.press("Enter");
      expect(await page.evaluate(`!!document.activeElement.closest("main")`)).toBe(true);
    }, SLOW);

    test(`${p.name}: 375 px wide without a horizontal scroll`, async () => {
      const page = await visit(p.who, p.path(demo), p.heading, 375);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(375);
    }, SLOW);

    test(`${p.name}: in dark mode, no serious or critical axe-core violation either (contrast is checked again)`, async () => {
      const { page } = pages.get(p.who)!;
      await page.emulateMedia({ colorScheme: "dark" });
      try {
        await visit(p.who, p.path(demo), p.heading);
        expect(await axeViolations(page)).toEqual([]);
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
      }
    }, SLOW);
  }

  for (const p of PAGES) {
    test(`${p.name}: in Turkish (a tr-TR browser), <html lang="tr"> and nothing left in English but the API's data`, async () => {
      const english = await pageTexts(await visit(p.who, p.path(demo), p.heading));
      const { page, data } = turkish.get(p.who)!;
      await page.goto(p.path(demo));
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(await page.evaluate(`document.documentElement.lang`)).toStartWith("tr");
      expect(englishLeft(english, await pageTexts(page), data)).toEqual([]);
    }, SLOW);
  }

  test("the payer's page (/pay/manual/…): one <main>, no axe-core finding, light or dark, and the status as a word with a capital", async () => {
    const top = await server.api("POST", "/v1/balance/top-up", { token: demo.account.token, body: { amount: 1500, currency: "usd" } });
    expect(top.status).toBe(201);
    const { page } = pages.get("guest")!;
    await page.goto(new URL(top.body.payment_url).pathname);
    await page.getByRole("heading", { level: 1, name: "Top up your credits" }).waitFor();
    expect(await page.locator("main").count()).toBe(1);
    expect(await page.locator(".status").textContent()).toBe("Pending");
    expect(await axeViolations(page)).toEqual([]);
    expect(await axeRuleViolations(page, ["landmark-one-main", "region"])).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      const background = await page.evaluate(`getComputedStyle(document.body).backgroundColor`);
      expect(background).not.toBe("rgb(255, 255, 255)");
      expect(background).not.toBe("rgba(0, 0, 0, 0)");
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
    }
    const tr = turkish.get("guest")!.page;
    await tr.goto(new URL(top.body.payment_url).pathname);
    expect(await tr.locator(".status").textContent()).toBe("Bekliyor");
  }, SLOW);

  test("the operator's pages are not an account's: an account session opening /admin/jobs sees no jobs list", async () => {
    const { page } = pages.get("account")!;
    await page.goto("/admin/jobs");
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("heading", { level: 1, name: /^Jobs$/ }).count()).toBe(0);
  }, SLOW);

  test("no page made a request off the service, and the CSP refused nothing", () => {
    const logs = [...pages.values(), ...turkish.values()].map((p) => p.log);
    expect(logs.flatMap((log) => log.requests).length).toBeGreaterThan(PAGES.length);
    expect(logs.flatMap((log) => foreignRequests(log, server.base))).toEqual([]);
    expect(logs.flatMap(cspViolations)).toEqual([]);
  });
});
