// A product's cut-out attempts in chromium, as the shop-owner trial asked: each attempt says what it was asked with
// (its frame and marks, English and Turkish), opens large in a dialog by keyboard (Escape closes it, the focus comes
// back), sits beside another attempt to compare (above it on a phone), and can be accepted from there; marks placed
// but not yet sent survive leaving the page, until a Retry uses them or they are cleared, and never move to a new
// photo of the product.
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { onPostgres } from "./helpers";
import { axeViolations, cspViolations, describeBrowser, foreignRequests, openPage, signedInSuite, switchLanguage, type NetworkLog, type StudioServer } from "./support/browser";
import { replacePhoto, retryCutout, uploadProduct, waitFor } from "./support/studio-demo";

// Not on the PostgreSQL passes: words and behaviour of the browser UI, which the database does not change.
const suite = onPostgres ? describe.skip : describeBrowser;
const SLOW = 240_000;

let server: StudioServer;
let page: Page;
let log: NetworkLog;
let account: { id: string; token: string };
/** Three attempts: the first cut-out, a retry with a point and a leave-out mark, one of the whole photo with a box. */
let teapot: any;
/** A product without retries used, for the marks. */
let jar: any;

const visit = (path: string, heading: RegExp) => openPage(page, path, heading);

/** Each attempt row's "Asked with" lines (its frame, its marks), oldest attempt first. */
const askedWith = () =>
  page.locator(".attempt-asked").evaluateAll((cells) => cells.map((cell: any) => [...cell.children].map((line: any) => line.textContent as string)));

/**
 * The label of the element the focus is on once a dialog has closed. The dialog's close event, where Studio settles
 * the focus, comes a task after it is hidden: the focus is given a moment to arrive at `label`.
 */
async function focusAfterClose(label: string): Promise<string | null> {
  await page.waitForFunction((want: string) => (globalThis as any).document.activeElement?.getAttribute("aria-label") === want, label, { timeout: 5_000 }).catch(() => {});
  return page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("aria-label") ?? null);
}

/** The sentence under the photo to mark that counts the marks placed. */
const markCount = () => page.locator("#hint-count");

/** Goes to the product list by the page's own back link and returns to the product by its link there (no reload). */
async function leaveAndComeBack(name: string) {
  await page.getByRole("link", { name: "All products" }).click();
  await page.getByRole("heading", { level: 1, name: /^Products$/ }).waitFor();
  await page.getByRole("link", { name: new RegExp(name) }).first().click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
  await page.getByRole("application").waitFor();
  // The kept marks come back in an effect after the page's first paint: given that moment, "No marks" means none.
  await Bun.sleep(300);
}

suite("Studio: a product's attempts in chromium (asked with, enlarged, compared) and its unsent marks", () => {
  signedInSuite(
    { name: "Attempts shop", credits: 5, language: "en" },
    (s) => void ({ server, page, log, account } = s),
    async (s) => {
      const token = s.account.token;
      teapot = await uploadProduct(s.server, token, "Glazed teapot");
      await retryCutout(s.server, token, teapot.id, { crop: "subject", hint: { point: { x: 300, y: 200 }, exclude: [{ x: 20, y: 20 }] } });
      const box = { x: 100, y: 50, width: 400, height: 300 };
      await retryCutout(s.server, token, teapot.id, { crop: "none", hint: { box, exclude: [{ x: 10, y: 10 }, { x: 590, y: 390 }] } });
      jar = await uploadProduct(s.server, token, "Honey jar");
    },
  );

  test("each attempt says what it was asked with: its frame and its marks, in English and in Turkish", async () => {
    await visit(`/products/${teapot.id}`, /Glazed teapot/);
    await page.getByRole("columnheader", { name: "Asked with" }).waitFor();
    expect(await askedWith()).toEqual([
      ["Around the product", "No marks"],
      ["Around the product", "1 on the product, 1 to leave out"],
      ["The whole photo", "A box round the product, 2 to leave out"],
    ]);
    await switchLanguage(page, "Türkçe");
    await page.getByRole("columnheader", { name: "Nasıl istendi" }).waitFor();
    expect(await askedWith()).toEqual([
      ["Ürünün çevresi", "İşaret yok"],
      ["Ürünün çevresi", "1 ürünün üzerinde, 1 dışarıda kalacak"],
      ["Fotoğrafın tamamı", "Ürünün çevresinde bir kutu, 2 dışarıda kalacak"],
    ]);
    await switchLanguage(page, "English");
  }, SLOW);

  test("`Enlarge` by keyboard opens the attempt large in a dialog on the checkerboard; Escape closes it, the focus returns", async () => {
    await visit(`/products/${teapot.id}`, /Glazed teapot/);
    const open = page.getByRole("button", { name: "Enlarge: Attempt 2" });
    await open.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Attempt 2" });
    await dialog.waitFor();
    const picture = dialog.getByRole("img", { name: "Cut-out of Attempt 2" });
    await page.waitForFunction((img: any) => img.complete && img.naturalWidth > 0, await picture.elementHandle(), { timeout: 30_000 });
    expect(await picture.getAttribute("class")).toContain("checkerboard");
    // Large: several times the thumbnail in the list (4rem).
    expect((await picture.boundingBox())!.width).toBeGreaterThan(300);
    await dialog.getByText("1 on the product, 1 to leave out").waitFor();
    expect(await page.evaluate(() => !!(globalThis as any).document.activeElement?.closest("dialog"))).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await focusAfterClose("Enlarge: Attempt 2")).toBe("Enlarge: Attempt 2");
  }, SLOW);

  test("`Compare with` puts another attempt beside it, the one in use named as such; `Close` ends it", async () => {
    await visit(`/products/${teapot.id}`, /Glazed teapot/);
    // Focused first, as a keyboard user gets there: the focus that comes back on closing is the one the dialog found.
    const enlarge = page.getByRole("button", { name: "Enlarge: Attempt 1" });
    await enlarge.focus();
    await enlarge.click();
    const dialog = page.getByRole("dialog", { name: "Attempt 1" });
    const beside = dialog.getByRole("combobox", { name: /^Compare with/ });
    expect(await beside.locator("option").allTextContents()).toEqual(["Nothing: this attempt alone", "Attempt 2", "Attempt 3 (in use)"]);
    await beside.selectOption({ label: "Attempt 3 (in use)" });
    const first = dialog.getByRole("img", { name: "Cut-out of Attempt 1" });
    const second = dialog.getByRole("img", { name: "Cut-out of Attempt 3" });
    await second.waitFor();
    const [a, b] = [(await first.boundingBox())!, (await second.boundingBox())!];
    // Side by side: the second to the right of the first, not under it.
    expect(b.x).toBeGreaterThanOrEqual(a.x + a.width);
    expect(b.y).toBeLessThan(a.y + a.height);
    await dialog.locator("figcaption", { hasText: "Attempt 3 (in use)" }).getByText("A box round the product, 2 to leave out").waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await beside.selectOption({ label: "Nothing: this attempt alone" });
    expect(await dialog.locator("figure").count()).toBe(1);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await focusAfterClose("Enlarge: Attempt 1")).toBe("Enlarge: Attempt 1");
  }, SLOW);

  test("on a phone (375 px) the two attempts compared stand one above the other, each near the dialog's width", async () => {
    await openPage(page, `/products/${teapot.id}`, /Glazed teapot/, 375);
    await page.getByRole("button", { name: "Enlarge: Attempt 1" }).click();
    const dialog = page.getByRole("dialog", { name: "Attempt 1" });
    await dialog.getByRole("combobox", { name: /^Compare with/ }).selectOption({ label: "Attempt 3 (in use)" });
    const first = dialog.getByRole("img", { name: "Cut-out of Attempt 1" });
    const second = dialog.getByRole("img", { name: "Cut-out of Attempt 3" });
    await page.waitForFunction((img: any) => img.complete && img.naturalWidth > 0, await second.elementHandle(), { timeout: 30_000 });
    const [a, b] = [(await first.boundingBox())!, (await second.boundingBox())!];
    // Side by side each would be about 160 px wide: a thumbnail again, nothing to compare by.
    expect(b.y).toBeGreaterThanOrEqual(a.y + a.height);
    expect(Math.min(a.width, b.width)).toBeGreaterThan(250);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
  }, SLOW);

  test("an attempt opened large can be accepted from the dialog", async () => {
    await visit(`/products/${teapot.id}`, /Glazed teapot/);
    await page.getByRole("button", { name: "Enlarge: Attempt 1" }).click();
    const dialog = page.getByRole("dialog", { name: "Attempt 1" });
    await dialog.getByRole("button", { name: "Accept this attempt" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByText("Attempt 1 is now the cut-out.").waitFor();
    const attempts = await server.api("GET", `/v1/products/${teapot.id}/dekupe/attempts`, { token: account.token });
    expect(attempts.body.data.map((a: any) => a.in_use)).toEqual([true, false, false]);
  }, SLOW);

  test("unsent marks are still there after leaving the product and coming back (or a reload), until a Retry uses them", async () => {
    await visit(`/products/${jar.id}`, /Honey jar/);
    const area = page.getByRole("application");
    await area.click({ position: { x: 60, y: 60 } });
    await page.getByRole("button", { name: "Leave out", exact: true }).click();
    await area.click({ position: { x: 10, y: 10 } });
    await markCount().getByText("2 marks: 1 on the product, 1 to leave out.").waitFor();
    await leaveAndComeBack("Honey jar");
    await markCount().getByText("2 marks: 1 on the product, 1 to leave out.").waitFor();
    await page.getByTestId("retry-marks").getByText("Retry uses your 2 marks").waitFor();
    await page.reload();
    await markCount().getByText("2 marks: 1 on the product, 1 to leave out.").waitFor();

    const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith(`/v1/products/${jar.id}/dekupe/retry`));
    await page.getByRole("button", { name: "Retry", exact: true }).click();
    expect((await sent).postDataJSON().hint.exclude).toHaveLength(1);
    await markCount().getByText("No marks: the next attempt chooses by itself.").waitFor();
    await waitFor(() => server.api("GET", `/v1/products/${jar.id}`, { token: account.token }), (res) => res.body.dekupe.status === "ready", 60_000);
    await leaveAndComeBack("Honey jar");
    await markCount().getByText("No marks: the next attempt chooses by itself.").waitFor();
  }, SLOW);

  test("`Clear marks` forgets the kept marks too: coming back finds none", async () => {
    await visit(`/products/${jar.id}`, /Honey jar/);
    await page.getByRole("application").click({ position: { x: 50, y: 50 } });
    await markCount().getByText("1 mark: 1 on the product, 0 to leave out.").waitFor();
    await page.getByRole("button", { name: "Clear marks" }).click();
    await leaveAndComeBack("Honey jar");
    await markCount().getByText("No marks: the next attempt chooses by itself.").waitFor();
  }, SLOW);

  test("marks kept for a photo are not put on the product's new photo", async () => {
    await visit(`/products/${jar.id}`, /Honey jar/);
    await page.getByRole("application").click({ position: { x: 70, y: 40 } });
    await markCount().getByText("1 mark: 1 on the product, 0 to leave out.").waitFor();
    // Kept: the same photo on return shows it again.
    await leaveAndComeBack("Honey jar");
    await markCount().getByText("1 mark: 1 on the product, 0 to leave out.").waitFor();
    await page.getByRole("link", { name: "All products" }).click();
    await page.getByRole("heading", { level: 1, name: /^Products$/ }).waitFor();
    const replaced = await replacePhoto(server, account.token, jar.id, "chelsea.jpg");
    expect(replaced.original_image_url).not.toBe(jar.original_image_url);
    await visit(`/products/${jar.id}`, /Honey jar/);
    await page.getByRole("application").waitFor();
    await markCount().getByText("No marks: the next attempt chooses by itself.").waitFor();
  }, SLOW);

  test("every request went to the service itself, and the CSP refused nothing", () => {
    expect(foreignRequests(log, server.base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
  });
});
