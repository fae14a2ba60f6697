// Studio's `Create video` with a premium template on a Standard account, in chromium: the template can be looked at,
// but the button is held back (as when credits are short) with the reason beside it, in English and Turkish, so the
// server's 403 is never invited; once the operator makes the account premium the same choice goes through.
import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { axeViolations, describeBrowser, openContext, signedInSuite, startSession, STUDIO_ADMIN_TOKEN, type StudioServer } from "./support/browser";
import { uploadProduct } from "./support/studio-demo";

const SLOW = 180_000;
const PREMIUM = "minimal-luxe";

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };

const submitButton = (on: Page, disabled: boolean) => on.locator(`form button[type="submit"]:${disabled ? "disabled" : "enabled"}`).waitFor();

async function choosePremium(on: Page) {
  await on.goto("/videos/new");
  await on.locator(`input[type="radio"][value="${PREMIUM}"]`).check();
}

describeBrowser("Studio: a premium template on a Standard account, in chromium", () => {
  signedInSuite(
    { name: "Standard shop", credits: 20, language: "en" },
    (s) => void ({ server, browser, page, account } = s),
    async (s) => {
      await uploadProduct(s.server, s.account.token, "Silk scarf");
    },
  );

  test("the premium template holds `Create video` back and says why beside it; nothing is ordered", async () => {
    await choosePremium(page);
    await submitButton(page, true);
    const said = page.locator("#premium-needed");
    await said.getByText("Minimal luxe is a premium template and this account is on the Standard plan").waitFor();
    expect(await page.getByRole("button", { name: "Create video", exact: true }).getAttribute("aria-describedby")).toBe("premium-needed");
    expect(await axeViolations(page)).toEqual([]);
    await page.locator("form input[type='text']").first().press("Enter");
    await Bun.sleep(500);
    expect((await server.api("GET", "/v1/videos", { token: account.token })).body.data).toEqual([]);
  }, SLOW);

  test("a template of the Standard plan lets the button go again, and the explanation goes", async () => {
    await page.locator(`input[type="radio"][value="clean-card"]`).check();
    await submitButton(page, false);
    expect((await page.locator("#premium-needed").textContent())?.trim()).toBe("");
  }, SLOW);

  test("in a Turkish browser the reason reads in Turkish, the template named as the Turkish catalogue names it", async () => {
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await choosePremium(tr.page);
      await submitButton(tr.page, true);
      await tr.page.locator("#premium-needed").getByText("Minimal lüks bir premium şablon, bu hesap ise Standart planda").waitFor();
    } finally {
      await tr.context.close();
    }
  }, SLOW);

  test("once the operator makes the account premium, the same template can be ordered", async () => {
    const made = await server.api("PATCH", `/v1/admin/accounts/${account.id}`, { token: STUDIO_ADMIN_TOKEN, body: { is_premium: true } });
    expect(made.status).toBe(200);
    await choosePremium(page);
    await submitButton(page, false);
    expect((await page.locator("#premium-needed").textContent())?.trim()).toBe("");
  }, SLOW);
});
