// Studio's Balance page in chromium against a real vitrin (issue #22 point 5): a top-up through the payment page and
// its status on return, the credits an amount buys said as it is typed, an amount typed the Turkish way, the least
// amount said in the form, and the transactions a page at a time (stacked into cards on a phone).
import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { describeBrowser, openContext, scrollWidth, signedInSuite, signInWithToken, startSession, STUDIO_ADMIN_TOKEN, type StudioServer } from "./support/browser";
import { waitFor } from "./support/studio-demo";

const SLOW = 120_000;

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };

const api = (method: string, path: string, body?: unknown) => server.api(method, path, { token: account.token, body });
const status = async (token: string) => (await server.api("GET", "/v1/balance", { token })).status;

async function open(path: string, heading: string) {
  await page.goto(path);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

describeBrowser("Studio: the Balance page in chromium", () => {
  signedInSuite(
    { name: "Console shop", credits: 30 },
    (s) => void ({ server, browser, page, account } = s),
  );

  test("as the amount is typed the form says what it buys; `Top up` opens the payment page; back on Balance the top-up shows pending, then paid", async () => {
    await open("/balance", "Balance");
    const buys = page.getByTestId("top-up-buys");
    // The credits come from the service's rate (GET /v1/balance/top-up-options), before anything is started.
    await buys.getByText("$10.00 buys 100 credits.").waitFor();
    await page.getByLabel(/^Amount\b/).fill("12.50");
    await buys.getByText("$12.50 buys 125 credits.").waitFor();
    await page.getByLabel(/^Currency\b/).selectOption("eur");
    await buys.getByText("€12.50 buys 137 credits.").waitFor();
    await page.getByLabel(/^Currency\b/).selectOption("usd");
    await page.getByRole("button", { name: "Top up", exact: true }).click();
    await page.waitForURL(/\/pay\/manual\/top_/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await api("GET", `/v1/balance/top-ups/${id}`)).body).toMatchObject({ amount: 1250, currency: "usd", status: "pending" });
    await page.goBack();
    await page.getByText(new RegExp(`Top-up ${id} of .* is waiting for its payment`)).waitFor();
    const paid = await server.api("POST", `/v1/admin/top-ups/${id}/complete`, { token: STUDIO_ADMIN_TOKEN });
    expect(paid.status).toBe(200);
    await page.getByText(`Top-up ${id} is paid: ${paid.body.credits} credits were added to your balance.`).waitFor({ timeout: 15_000 });
    const credits = (await api("GET", "/v1/balance")).body.credits;
    await waitFor(async () => (await page.getByTestId("credits").textContent())?.replace(/\D/g, ""), (shown) => shown === String(credits), 15_000);
  }, SLOW);

  test("the payment page links back to Balance, which shows that top-up's status (in a tab that never started it)", async () => {
    const top = await api("POST", "/v1/balance/top-up", { amount: 2000, currency: "eur" });
    expect(top.status).toBe(201);
    const other = await openContext(browser, server.base);
    await signInWithToken(other.page, account.token);
    await other.page.goto(new URL(top.body.payment_url).pathname);
    await other.page.getByRole("link", { name: "Back to your balance in vitrin Studio" }).click();
    await other.page.getByRole("heading", { level: 1, name: "Balance" }).waitFor();
    await other.page.getByText(new RegExp(`Top-up ${top.body.id} of €20\\.00 \\(${top.body.credits} credits\\) is waiting`)).waitFor();
    await other.context.close();
  }, SLOW);

  test("a plain /balance in a tab that started nothing shows the newest top-up still waiting, with its payment page; dismissed, it stays away", async () => {
    const top = await api("POST", "/v1/balance/top-up", { amount: 3000, currency: "usd" });
    expect(top.status).toBe(201);
    const other = await openContext(browser, server.base);
    try {
      await signInWithToken(other.page, account.token);
      await other.page.goto("/balance");
      await other.page.getByText(new RegExp(`Top-up ${top.body.id} of \\$30\\.00 \\(${top.body.credits} credits\\) is waiting`)).waitFor();
      const link = other.page.getByRole("link", { name: "Open the payment page" });
      expect(new URL((await link.getAttribute("href"))!, server.base).pathname).toBe(new URL(top.body.payment_url).pathname);
      await other.page.getByRole("button", { name: "Dismiss" }).click();
      await other.page.reload();
      await other.page.getByRole("heading", { level: 1, name: "Balance" }).waitFor();
      await other.page.waitForLoadState("networkidle");
      expect(await other.page.getByText(top.body.id).count()).toBe(0);
    } finally {
      await other.context.close();
    }
  }, SLOW);

  test("in Turkish, `25,50` is 25.50 (a dot is taken too) and the credits it buys are said; an ambiguous `1.000` is refused", async () => {
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await tr.page.goto("/balance");
      await tr.page.getByRole("heading", { level: 1, name: "Bakiye" }).waitFor();
      const amount = tr.page.getByLabel(/^Tutar\b/);
      expect(await amount.getAttribute("type")).toBe("text");
      expect(await amount.getAttribute("inputmode")).toBe("decimal");
      expect(await amount.inputValue()).toBe("10,00");
      // A Turkish shop starts in lira.
      expect(await tr.page.getByLabel(/^Para birimi\b/).inputValue()).toBe("try");
      await tr.page.getByText("En az ₺10,00.").waitFor();
      await amount.fill("1.000");
      await tr.page.getByRole("button", { name: "Kredi yükle", exact: true }).click();
      await tr.page.getByText("“1.000” iki farklı tutar olarak okunabilir: kuruştan önce virgülle, 25,50 gibi yazın.").waitFor();
      expect(await amount.getAttribute("aria-invalid")).toBe("true");
      await amount.fill("25.5");
      await amount.blur();
      expect(await amount.inputValue()).toBe("25,50");
      await amount.fill("25,50");
      // 25.50 lira at the default 0.3 credits a lira: 7 credits, said before anything is started.
      await tr.page.getByTestId("top-up-buys").getByText(/^₺25,50 ile 7 kredi alırsınız\./).waitFor();
      await tr.page.getByRole("button", { name: "Kredi yükle", exact: true }).click();
      await tr.page.waitForURL(/\/pay\/manual\/top_/);
      // vitrin's own payment page is told Studio's language, whatever the browser prefers.
      expect(new URL(tr.page.url()).searchParams.get("lang")).toBe("tr");
      await tr.page.getByRole("heading", { name: "Kredi yükleyin" }).waitFor();
      const id = new URL(tr.page.url()).pathname.split("/").pop()!;
      expect((await api("GET", `/v1/balance/top-ups/${id}`)).body).toMatchObject({ amount: 2550, currency: "try", status: "pending" });
    } finally {
      await tr.context.close();
    }
  }, SLOW);

  test("at 375 px the transactions stack into cards: no column is cut off and the page does not scroll sideways", async () => {
    const phone = await openContext(browser, server.base, { viewport: { width: 375, height: 740 } });
    try {
      await startSession(phone.context, server.base, account.token);
      await phone.page.goto("/balance");
      const table = phone.page.getByRole("region", { name: "Transactions (table)" });
      await table.locator("tbody tr").first().waitFor();
      expect(await table.getAttribute("class")).toContain("table-stacks");
      expect(await scrollWidth(phone.page)).toBeLessThanOrEqual(375);
      const cell = table.locator('tbody tr:first-child td[data-label="Balance after"]');
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    } finally {
      await phone.context.close();
    }
  }, SLOW);

  test("an amount under the least top-up is refused in the form, and no payment page opens", async () => {
    await open("/balance", "Balance");
    await page.getByLabel(/^Amount\b/).fill("3");
    await page.getByRole("button", { name: "Top up", exact: true }).click();
    await page.getByText("Enter at least $10.00.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/balance");
  }, SLOW);

  test("transactions page through with `Next` and `Previous`, newest first", async () => {
    for (let i = 1; i <= 22; i++) {
      await server.api("POST", `/v1/admin/accounts/${account.id}/credits`, { token: STUDIO_ADMIN_TOKEN, body: { amount: 1, description: `Grant number ${i}` } });
    }
    const all = [];
    for (let after: string | undefined, more = true; more; ) {
      const res = await api("GET", `/v1/balance/transactions?limit=100${after ? `&starting_after=${after}` : ""}`);
      all.push(...res.body.data);
      more = res.body.has_more;
      after = all.at(-1)?.id;
    }
    await open("/balance", "Balance");
    const rows = page.getByRole("region", { name: "Transactions (table)" }).locator("tbody tr");
    await waitFor(() => rows.count(), (n) => n === 20, 15_000);
    expect(await rows.first().textContent()).toContain("Grant number 22");
    await page.getByRole("button", { name: "Next" }).click();
    await waitFor(() => rows.count(), (n) => n === all.length - 20, 15_000);
    expect(await rows.first().textContent()).toContain(all[20].description);
    await page.getByRole("button", { name: "Previous" }).click();
    await waitFor(async () => (await rows.first().textContent()) ?? "", (text) => text.includes("Grant number 22"), 15_000);
  }, SLOW);
});
