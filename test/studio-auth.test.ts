// Studio's doors in a real browser (issue #22 points 2, 8 and 9): signing in with a token and with a one-time login
// link, by keyboard alone, signing out for good (the tab's drafts and marks forgotten too); the Turkish UI from the
// browser's language and the switch that overrides it; dark mode; and every request the pages made stayed on the
// service, with nothing the CSP refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import {
  browserLost,
  browserRuns,
  cspViolations,
  describeBrowser,
  foreignRequests,
  launchChromium,
  openContext,
  sessionCookie,
  signInWithToken,
  startStudioServer,
  STUDIO_ADMIN_TOKEN,
  type NetworkLog,
  type StudioServer,
} from "./support/browser";

// One browser and one service for the file: chromium's start and the server's are most of a test's cost. It runs on
// the PostgreSQL passes too (sessions and login links live in the database; the file takes seconds); the harness keeps
// stored files on local disk, the service's own origin, which is the only one Studio's CSP lets it load from. The hooks
// belong to the file, shared by its two suites in order, and do nothing where the suites are skipped.
const suite = describeBrowser;

let server: StudioServer;
let browser: Browser;
let account: { id: string; token: string };
const logs: NetworkLog[] = [];

/** A fresh context whose requests join the file's network log. */
async function fresh(options: Parameters<typeof openContext>[2] = {}) {
  const opened = await openContext(browser, server.base, options);
  logs.push(opened.log);
  return opened;
}

/**
 * A test in chromium that is run once more, on a new browser, when Playwright's client lost its connection to the
 * browser: a protocol race in playwright-core seen under heavy load in CI ("Cannot find parent object request@… to
 * create response@…"), after which every later call fails with the browser closed. The same race may instead surface
 * as an error thrown in playwright-core's message dispatch, outside any call this test awaits (twice in CI, failing
 * this test and the next two at once with "…was not bound in the connection"); bun's `retry` runs such a test once
 * more, as no catch here can see it.
 */
function browserTest(name: string, fn: () => Promise<void>) {
  test(name, async () => {
    try {
      await fn();
    } catch (err) {
      if (!browserLost(err)) throw err;
      console.warn(`chromium's connection was lost (${String(err).split("\n")[0]}); running "${name}" again on a new browser`);
      await browser.close().catch(() => {});
      browser = await launchChromium();
      await fn();
    }
  }, { retry: 1 });
}

beforeAll(async () => {
  if (!browserRuns) return;
  [server, browser] = await Promise.all([startStudioServer({ backgroundRemoval: "none" }), launchChromium()]);
  account = await server.newAccount({ name: "Door shop", credits: 5 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

suite("Studio: signing in and out in chromium", () => {
  browserTest("a token typed into `API token` and `Sign in` opens Products with an HttpOnly, SameSite=Strict cookie and nothing in storage", async () => {
    const { context, page } = await fresh();
    await page.goto("/");
    await page.waitForURL("**/sign-in");
    await signInWithToken(page, account.token);
    await page.waitForURL("**/products");
    await expect(page.getByRole("heading", { level: 1, name: "Products" }).isVisible()).resolves.toBe(true);
    const cookie = (await context.cookies()).find((c) => c.name === "vitrin_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookie.value).not.toContain(account.token);
    const stored = await page.evaluate(`JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])`);
    expect(String(stored)).not.toContain(account.token);
    await context.close();
  });

  browserTest("a wrong token stays on the sign-in page with a message", async () => {
    const { context, page } = await fresh();
    await page.goto("/sign-in");
    await page.getByLabel("API token").fill("vt_not_a_real_token_0123456789");
    await page.getByRole("button", { name: "Sign in" }).click();
    // The field says it: marked invalid, with a message it is described by.
    const field = page.locator('input[aria-invalid="true"]');
    await field.waitFor();
    expect(await field.evaluate((el: any) => el.labels[0].textContent)).toContain("API token");
    const message = await field.evaluate((el: any) =>
      (el.getAttribute("aria-describedby") ?? "").split(" ").map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? "").join(" "),
    );
    expect(message.trim().length).toBeGreaterThan(10);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  browserTest("a login link signs in once: the same link a second time lands on the sign-in page with a message", async () => {
    const link = await server.api("POST", `/v1/admin/accounts/${account.id}/login_links`, { token: STUDIO_ADMIN_TOKEN });
    expect(link.status).toBe(201);
    expect(link.body.url).toStartWith(`${server.base}/studio/login/`);

    const first = await fresh();
    await first.page.goto(link.body.url);
    await first.page.waitForURL("**/products");
    await first.page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    expect((await first.context.cookies()).some((c) => c.name === "vitrin_session")).toBe(true);
    await first.context.close();

    const second = await fresh();
    await second.page.goto(link.body.url);
    await second.page.waitForURL((url) => url.pathname === "/sign-in");
    expect(new URL(second.page.url()).searchParams.get("link")).toBe("invalid");
    await second.page.getByRole("status").or(second.page.getByRole("alert")).filter({ hasText: /link/i }).first().waitFor();
    expect((await second.context.cookies()).some((c) => c.name === "vitrin_session")).toBe(false);
    await second.context.close();
  });

  browserTest("`Sign out` ends the session on the server: the cookie it had is refused afterwards", async () => {
    const { context, page } = await fresh();
    await signInWithToken(page, account.token);
    const cookie = await sessionCookie(context);
    expect((await server.api("GET", "/v1/balance", { cookie })).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    expect((await server.api("GET", "/v1/balance", { cookie })).status).toBe(401);
    expect((await server.api("GET", "/studio/session", { cookie })).status).toBe(401);
    await context.close();
  });

  browserTest("`Sign out` clears the tab's Studio drafts, unsent marks and top-up from sessionStorage, not the language", async () => {
    const { context, page } = await fresh();
    await signInWithToken(page, account.token);
    await page.evaluate(() => {
      const w = globalThis as any;
      w.sessionStorage.setItem(`vitrin.studio.videoDrafts.acct_x`, `{"last":null,"drafts":{}}`);
      w.sessionStorage.setItem("vitrin.studio.marks.prod_x", `{"photo":"p","marks":[]}`);
      w.sessionStorage.setItem("vitrin.studio.topUp", "top_x");
      w.sessionStorage.setItem("another.tool", "kept");
      w.localStorage.setItem("vitrin.studio.language", "en");
    });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    const left = await page.evaluate(() => {
      const w = globalThis as any;
      const keys = Array.from({ length: w.sessionStorage.length }, (_, i) => w.sessionStorage.key(i));
      return { keys, language: w.localStorage.getItem("vitrin.studio.language") };
    });
    expect(left).toEqual({ keys: ["another.tool"], language: "en" });
    await context.close();
  });

  browserTest("by keyboard alone: Tab to `API token`, type, Enter, then Tab to the `Videos` link and Enter", async () => {
    const { context, page } = await fresh();
    await page.goto("/sign-in");
    await page.getByLabel("API token").waitFor();
    await tabUntil(page, async () => page.evaluate(`document.activeElement?.labels?.[0]?.textContent ?? ""`).then((t) => String(t).includes("API token")));
    await page.keyboard.type(account.token);
    await page.keyboard.press("Enter");
    await page.waitForURL("**/products");
    await tabUntil(page, async () => (await page.evaluate(`document.activeElement?.textContent?.trim() ?? ""`)) === "Videos");
    await page.keyboard.press("Enter");
    await page.waitForURL("**/videos");
    await page.getByRole("heading", { level: 1, name: "Videos" }).waitFor();
    await context.close();
  });

});

suite("Studio: language, dark mode, CSP and page weight in chromium", () => {
  browserTest("a browser in Turkish gets the Turkish UI; `English` in `Interface language` switches it back", async () => {
    const { context, page } = await fresh({ locale: "tr-TR" });
    await page.goto("/sign-in");
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await page.getByRole("button", { name: "Sign in", exact: true }).count()).toBe(0);
    expect(await page.evaluate(`document.documentElement.lang`)).toStartWith("tr");
    await page.getByRole("group", { name: /Interface language|Arayüz dili/ }).getByRole("button", { name: "English" }).click();
    await page.getByRole("button", { name: "Sign in", exact: true }).waitFor();
    expect(await page.evaluate(`document.documentElement.lang`)).toStartWith("en");
    await context.close();
  });

  browserTest("dark mode from prefers-color-scheme changes the page's background", async () => {
    const { context, page } = await fresh();
    await page.goto("/sign-in");
    await page.getByLabel("API token").waitFor();
    // The first painted background from <body> up: a page may paint <html> and leave <body> transparent.
    const background = () =>
      page.evaluate(
        `[document.body, document.documentElement].map(e => getComputedStyle(e).backgroundColor).find(c => c !== "rgba(0, 0, 0, 0)" && c !== "transparent") ?? "rgb(255, 255, 255)"`,
      );
    await page.emulateMedia({ colorScheme: "light" });
    const light = await background();
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await background();
    expect(dark).not.toBe(light);
    expect(luminance(String(dark))).toBeLessThan(luminance(String(light)));
    await context.close();
  });

  browserTest("the CSP holds in the browser: an inline script put into the page does not run, and the refusal is reported", async () => {
    // Outside the file's network log: this test makes the one CSP refusal the last test must not find.
    const { context, page } = await openContext(browser, server.base);
    await page.goto("/sign-in");
    await page.getByLabel("API token").waitFor();
    const outcome = await page.evaluate(`new Promise((resolve) => {
      document.addEventListener("securitypolicyviolation", (e) => resolve({ ran: window.__inlineRan === true, directive: e.effectiveDirective }), { once: true });
      const script = document.createElement("script");
      script.textContent = "window.__inlineRan = true";
      document.body.append(script);
      setTimeout(() => resolve({ ran: window.__inlineRan === true, directive: null }), 2000);
    })`);
    expect(outcome).toEqual({ ran: false, directive: "script-src-elem" });
    await context.close();
  });

  browserTest("a first visit loads at most 150 KB of JavaScript and CSS as sent (compressed), measured by the browser", async () => {
    const { context, page } = await fresh();
    await page.goto("/");
    await page.getByLabel("API token").waitFor();
    await page.waitForLoadState("networkidle");
    const sizes = (await page.evaluate(
      `performance.getEntriesByType("resource").filter(e => /\\.(js|css)(\\?|$)/.test(e.name)).map(e => [e.name, e.encodedBodySize, e.decodedBodySize])`,
    )) as [string, number, number][];
    expect(sizes.length).toBeGreaterThan(0);
    const sent = sizes.reduce((sum, [, encoded]) => sum + encoded, 0);
    const unpacked = sizes.reduce((sum, [, , decoded]) => sum + decoded, 0);
    expect(sent).toBeLessThanOrEqual(150 * 1024);
    // Compression really happened: the bytes sent are well under the bytes the browser unpacked.
    expect(sent).toBeLessThan(unpacked * 0.6);
    await context.close();
  });

  test("every request the pages above made went to the service itself, and the CSP refused nothing", () => {
    const all = logs.flatMap((log) => log.requests);
    expect(all.length).toBeGreaterThan(20);
    expect(logs.flatMap((log) => foreignRequests(log, server.base))).toEqual([]);
    expect(logs.flatMap(cspViolations)).toEqual([]);
  });
});

/** Presses Tab (at most 40 times) until `focused` holds; fails the test when it never does. */
async function tabUntil(page: import("playwright-core").Page, focused: () => Promise<boolean>) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    if (await focused()) return;
  }
  throw new Error("Tab never reached the control");
}

/** Relative luminance of a CSS rgb()/rgba() colour, enough to tell a dark background from a light one. */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? ["255", "255", "255"]).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
