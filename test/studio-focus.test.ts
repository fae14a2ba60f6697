// Where the keyboard focus goes after an action in Studio, in chromium: never back to <body>. `Create product` (on a
// phone too, where the new card is a screen above the form), `Retry` of a cut-out, `Revoke` of a token, `Add
// endpoint` (its secret or its error), `Delete` of an endpoint and an in-app page change each land on the message, the
// changed element or the new page's heading; a destructive confirmation opens on Cancel.
import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { describeBrowser, fixturePhoto, openContext, signedInSuite, signInWithToken, type StudioServer } from "./support/browser";
import { uploadProduct, waitFor } from "./support/studio-demo";

const SLOW = 120_000;

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };

const api = (method: string, path: string, body?: unknown) => server.api(method, path, { token: account.token, body });

/** What has the focus: its tag, id, text and test id, enough to say which element it is. */
type Focused = { tag: string; id: string; text: string; role: string };

function focused(on: Page): Promise<Focused> {
  return on.evaluate(`(() => {
    const el = document.activeElement;
    return { tag: el ? el.tagName.toLowerCase() : "", id: el?.id ?? "", text: el?.textContent?.trim() ?? "", role: el?.getAttribute("role") ?? "" };
  })()`) as Promise<Focused>;
}

/** Waits until the focus is on something that satisfies `done` (focus moves after the answer and a reload). */
const focusWhere = (on: Page, done: (f: Focused) => boolean) => waitFor(() => focused(on), done, 15_000);

async function openDevelopers() {
  await page.goto("/developers");
  await page.getByRole("heading", { level: 1, name: "Developers" }).waitFor();
}

describeBrowser("Studio: the keyboard focus after an action, in chromium", () => {
  signedInSuite(
    { name: "Focus shop", credits: 10, language: "en" },
    (s) => void ({ server, browser, page, account } = s),
  );

  test("on a 375 px phone, `Create product` moves the focus and the view to the new product, not to the empty form", async () => {
    const phone = await openContext(browser, server.base, { viewport: { width: 375, height: 740 } });
    try {
      await signInWithToken(phone.page, account.token);
      await phone.page.goto("/products");
      await phone.page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      await phone.page.getByLabel("Image").setInputFiles(fixturePhoto());
      await phone.page.getByLabel(/^Name\b/).fill("Phone mug");
      await phone.page.getByRole("button", { name: "Create product" }).click();
      const made = await focusWhere(phone.page, (f) => f.tag !== "body" && f.tag !== "button" && /Phone mug|Product created/.test(f.text));
      expect(made.text).toMatch(/Phone mug|Product created/);
      const inView = await phone.page.evaluate(`(() => {
        const box = document.activeElement.getBoundingClientRect();
        return box.bottom > 0 && box.top < window.innerHeight;
      })()`);
      expect(inView).toBe(true);
    } finally {
      await phone.context.close();
    }
  }, SLOW);

  test("`Retry` of a cut-out moves the focus to the cut-out panel, which says how the new attempt stands", async () => {
    const product = await uploadProduct(server, account.token, "Retry jar");
    await page.goto(`/products/${product.id}`);
    await page.getByRole("heading", { level: 1, name: "Retry jar" }).waitFor();
    await page.getByRole("button", { name: "Retry" }).click();
    await focusWhere(page, (f) => f.id === "cutout-panel");
  }, SLOW);

  test("`Revoke` opens on Cancel; confirmed, the focus goes to the message that says the token was revoked", async () => {
    await api("POST", "/v1/tokens", { name: "to-revoke" });
    await openDevelopers();
    await page.getByRole("button", { name: /^Revoke token to-revoke/ }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect((await focused(page)).text).toBe("Cancel");
    await dialog.getByRole("button", { name: "Revoke" }).click();
    await page.getByText("Token to-revoke was revoked.").waitFor();
    await focusWhere(page, (f) => f.text === "Token to-revoke was revoked.");
  }, SLOW);

  test("`Add endpoint` moves the focus to the new secret on success, and to the error when the API refuses", async () => {
    await openDevelopers();
    await page.getByLabel(/^Endpoint URL\b/).fill("http://127.0.0.1:9/hooks/focus");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await focusWhere(page, (f) => f.tag === "div" && /secret/i.test(f.text));
    await page.getByLabel(/^Endpoint URL\b/).fill("http://127.0.0.1:9/hooks/other");
    await page.getByLabel(/^Events\b/).fill("no.such.event");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const refused = await focusWhere(page, (f) => f.tag === "div" && f.text.length > 0 && !/secret/i.test(f.text));
    expect(refused.role).toBe("alert");
  }, SLOW);

  test("`Delete` of an endpoint opens on Cancel; confirmed, the focus goes to the message that says it was deleted", async () => {
    await openDevelopers();
    await page.getByRole("button", { name: "Delete endpoint http://127.0.0.1:9/hooks/focus" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect((await focused(page)).text).toBe("Cancel");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await focusWhere(page, (f) => f.text === "The endpoint was deleted.");
  }, SLOW);

  test("an in-app page change puts the focus on the new page's heading", async () => {
    await openDevelopers();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Videos" }).click();
    await page.getByRole("heading", { level: 1, name: "Videos" }).waitFor();
    await focusWhere(page, (f) => f.tag === "h1" && f.text === "Videos");
    // A link inside the page, gone with the page it was on, is no reason to leave the focus on <body> either.
    await page.goto("/products");
    await page.getByRole("link", { name: /Retry jar/ }).click();
    await focusWhere(page, (f) => f.tag === "h1" && f.text === "Retry jar");
  }, SLOW);
});
