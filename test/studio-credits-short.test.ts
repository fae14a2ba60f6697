// Studio's `Create video` when the balance is short of the estimate, in chromium: the button is held back and says
// how many credits are missing with a link to the Balance page (also in Turkish; no axe-core problem, light or dark);
// a cheaper choice, or credits granted by the operator and a re-estimate (an option changed, or the tab come back
// to), let it go again.
import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { axeViolations, cspViolations, describeBrowser, foreignRequests, type NetworkLog, openContext, signedInSuite, startSession, STUDIO_ADMIN_TOKEN, type StudioServer } from "./support/browser";
import { uploadProduct } from "./support/studio-demo";

const SLOW = 180_000;
/** One credit: enough for `Clean card` (1 credit), one short of `Feature split` (2 credits). */
const CREDITS = 1;

let server: StudioServer;
let browser: Browser;
let page: Page;
let log: NetworkLog;
let account: { id: string; token: string };

const api = (path: string) => server.api("GET", path, { token: account.token });
const grant = (amount: number) =>
  server.api("POST", `/v1/admin/accounts/${account.id}/credits`, { token: STUDIO_ADMIN_TOKEN, body: { amount, description: "Test grant" } });

/** Picks a template in the gallery and waits until the estimate on show is its cost. */
async function chooseTemplate(on: Page, id: string, cost: RegExp) {
  await on.locator(`input[type="radio"][value="${id}"]`).check();
  await on.locator(".estimate").filter({ hasText: cost }).waitFor();
}

/** Waits until the form's submit button is disabled (held back) or enabled. */
const submitButton = (on: Page, disabled: boolean) => on.locator(`form button[type="submit"]:${disabled ? "disabled" : "enabled"}`).waitFor();

describeBrowser("Studio: `Create video` with a balance short of the estimate, in chromium", () => {
  signedInSuite(
    { name: "Short shop", credits: CREDITS, language: "en" },
    (s) => void ({ server, browser, page, account, log } = s),
    async (s) => {
      await uploadProduct(s.server, s.account.token, "Tea tin");
    },
  );

  test("an estimate over the balance disables `Create video`, which says how many credits are missing and links to Balance", async () => {
    await page.goto("/videos/new");
    await chooseTemplate(page, "feature-split", /\b2 credits\b/);
    await submitButton(page, true);
    const said = page.locator("#credits-short");
    expect(await said.textContent()).toContain("1 credit short: this video costs 2 credits and your balance is 1.");
    expect(await said.getByRole("link", { name: "Top up credits on the Balance page" }).getAttribute("href")).toBe("/balance");
    expect(await page.getByRole("button", { name: "Create video", exact: true }).getAttribute("aria-describedby")).toBe("credits-short");
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
    }
    // Enter in a text field (the form's implicit submission) orders nothing either.
    await page.locator("form input[type='text']").first().press("Enter");
    await Bun.sleep(500);
    expect((await api("/v1/videos")).body.data).toEqual([]);
  }, SLOW);

  test("a template the balance covers enables the button again and the explanation goes; back to the dearer one, it is held again", async () => {
    await chooseTemplate(page, "clean-card", /\b1 credit\b/);
    await submitButton(page, false);
    expect((await page.locator("#credits-short").textContent())?.trim()).toBe("");
    await chooseTemplate(page, "feature-split", /\b2 credits\b/);
    await submitButton(page, true);
  }, SLOW);

  test("in a Turkish browser the explanation and its link read in Turkish", async () => {
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await tr.page.goto("/videos/new");
      await chooseTemplate(tr.page, "feature-split", /\b2 kredi\b/);
      await submitButton(tr.page, true);
      const said = tr.page.locator("#credits-short");
      expect(await said.textContent()).toContain("1 kredi eksik: bu videonun maliyeti 2 kredi, bakiyeniz 1 kredi.");
      expect(await said.getByRole("link", { name: "Bakiye sayfasında kredi yükleyin" }).getAttribute("href")).toBe("/balance");
      expect(foreignRequests(tr.log, server.base)).toEqual([]);
    } finally {
      await tr.context.close();
    }
  }, SLOW);

  test("credits granted by the operator and a re-estimate (another format) enable the button, and the video is ordered", async () => {
    expect((await grant(1)).status).toBe(201);
    await page.getByRole("combobox", { name: /^Format\b/ }).selectOption("1:1");
    await submitButton(page, false);
    expect((await page.locator("#credits-short").textContent())?.trim()).toBe("");
    await page.getByRole("button", { name: "Create video", exact: true }).click();
    await page.waitForURL((url) => /^\/videos\/vid_/.test(url.pathname));
    expect((await api("/v1/balance")).body.credits).toBe(0);
  }, SLOW);

  test("credits topped up in another tab count when the customer comes back to this one, without a change or a reload", async () => {
    await page.goto("/videos/new");
    await chooseTemplate(page, "clean-card", /\b1 credit\b/);
    await submitButton(page, true);
    expect((await grant(1)).status).toBe(201);
    // Coming back to the tab: the page hears visibilitychange (headless chromium's page is always visible).
    await page.evaluate(`document.dispatchEvent(new Event("visibilitychange"))`);
    await submitButton(page, false);
  }, SLOW);

  test("every request went to the service itself, and the CSP refused nothing", () => {
    expect(foreignRequests(log, server.base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
  });
});
