// Studio's messages instead of dead ends, in chromium (issue #22 points 3 and 4): a file that is no image (also in a
// Turkish browser, in Turkish), a photo dropped on the drop zone, the limit of five products, a template field the API
// refuses (422) shown at that field, a failed video that says why and that its credits came back, and a failed cut-out
// that says why in Turkish.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { storageKeyOf } from "./helpers";
import {
  cspViolations,
  describeBrowser,
  fixturePhoto,
  foreignRequests,
  launchChromium,
  openContext,
  signInWithToken,
  startSession,
  startStudioServer,
  type NetworkLog,
  type StudioServer,
} from "./support/browser";
import { uploadProduct, waitFor } from "./support/studio-demo";

const SLOW = 180_000;
const CREDITS = 10;

let server: StudioServer;
let browser: Browser;
let page: Page;
let log: NetworkLog;
let account: { id: string; token: string };

const api = (path: string) => server.api("GET", path, { token: account.token });
const productCount = async () => (await api("/v1/products")).body.data.length as number;

/** The text of the element(s) a control's aria-describedby points at (its hint and its error). */
const describedText = (selector: string) =>
  page.locator(selector).first().evaluate((el: any) =>
    (el.getAttribute("aria-describedby") ?? "").split(" ").map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? "").join(" "),
  );

/** Opens /products afresh and waits for its create form. */
async function productsPage() {
  await page.goto("/products");
  await page.getByRole("button", { name: "Create product", exact: true }).waitFor();
}

// The pass-through cut-out keeps this file quick (the real model has studio-flow.test.ts); it runs on every pass.
describeBrowser("Studio: messages instead of dead ends, in chromium", () => {
  beforeAll(async () => {
    [server, browser] = await Promise.all([startStudioServer({ backgroundRemoval: "none" }), launchChromium()]);
    account = await server.newAccount({ name: "Error shop", credits: CREDITS });
    ({ page, log } = await openContext(browser, server.base));
    await signInWithToken(page, account.token);
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("a file that is no image gets the API's message at `Image`; the same form then takes a real photo", async () => {
    await productsPage();
    const image = page.getByLabel(/^Image\b/);
    const hintOnly = await describedText('input[type="file"]');
    await image.setInputFiles({ name: "notes.jpg", mimeType: "image/jpeg", buffer: Buffer.from("these are notes, not a photo") });
    await page.getByLabel(/^Name\b/).fill("Notes");
    await page.getByRole("button", { name: "Create product", exact: true }).click();
    await page.locator('input[type="file"][aria-invalid="true"]').waitFor();
    // The control is now described by its hint and a message of the API's refusal.
    expect((await describedText('input[type="file"]')).length).toBeGreaterThan(hintOnly.length + 10);
    expect(await productCount()).toBe(0);

    await image.setInputFiles(fixturePhoto("chelsea.jpg"));
    await page.getByLabel(/^Name\b/).fill("Cat mug");
    await page.getByRole("button", { name: "Create product", exact: true }).click();
    await page.getByRole("link", { name: /Cat mug/ }).first().waitFor();
    expect(await productCount()).toBe(1);
  }, SLOW);

  test("a file refused as it is chosen (over 5 MB, not an image) keeps its reason after `Create product`, and the picker lets it go", async () => {
    await productsPage();
    const before = await productCount();
    const image = page.getByLabel(/^Image\b/);
    expect(await describedText('input[type="file"]')).toContain("up to 5 MB");
    for (const [file, reason] of [
      [{ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(5 * 1024 * 1024 + 1) }, "The image is larger than 5 MB."],
      [{ name: "price-list.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4") }, "Choose a JPEG, PNG or WebP image."],
    ] as const) {
      await image.setInputFiles(file);
      await page.getByText(reason).waitFor();
      expect(await image.inputValue()).toBe("");
      await page.getByLabel(/^Name\b/).fill("Bag");
      await page.getByRole("button", { name: "Create product", exact: true }).click();
      await page.locator('input[type="file"][aria-invalid="true"]').waitFor();
      expect(await page.getByText(reason).count()).toBe(1);
      expect(await page.getByText("Choose an image.").count()).toBe(0);
    }
    expect(await productCount()).toBe(before);
  }, SLOW);

  test("in a Turkish browser the API's refusal of a file that is no image reads in the Studio's Turkish, at `Görsel`", async () => {
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await tr.page.goto("/products");
      await tr.page.getByLabel(/^Görsel\b/).setInputFiles({ name: "notlar.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not, fotoğraf değil") });
      await tr.page.getByLabel(/^Ad\b/).fill("Notlar");
      await tr.page.getByRole("button", { name: "Ürün oluştur", exact: true }).click();
      const field = tr.page.locator('input[type="file"][aria-invalid="true"]');
      await field.waitFor();
      const said = await field.evaluate((el: any) =>
        (el.getAttribute("aria-describedby") ?? "").split(" ").map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? "").join(" "),
      );
      expect(said).toContain("Görsel JPG, PNG ya da WebP dosyası olmalı.");
      expect(said).not.toContain("The image must be");
      expect(foreignRequests(tr.log, server.base)).toEqual([]);
    } finally {
      await tr.context.close();
    }
  }, SLOW);

  test("a photo dropped on the drop zone is taken like a chosen one", async () => {
    await productsPage();
    const bytes = readFileSync(fixturePhoto("astronaut.jpg")).toString("base64");
    const dataTransfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const bytes = Uint8Array.from(atob(${JSON.stringify(bytes)}), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], "astronaut.jpg", { type: "image/jpeg" }));
      return dt;
    })()`);
    const zone = page.locator("form").filter({ has: page.getByLabel(/^Image\b/) }).locator('[class*="drop"]').first();
    await zone.dispatchEvent("dragover", { dataTransfer });
    await zone.dispatchEvent("drop", { dataTransfer });
    await page.getByLabel(/^Name\b/).fill("Dropped astronaut");
    await page.getByRole("button", { name: "Create product", exact: true }).click();
    await page.getByRole("link", { name: /Dropped astronaut/ }).first().waitFor();
    const created = (await api("/v1/products")).body.data.find((p: any) => p.name === "Dropped astronaut");
    expect(created).toBeDefined();
  }, SLOW);

  test("at five products the form says so before anyone tries, and a create anyway shows the API's refusal", async () => {
    for (let n = await productCount(); n < 5; n++) await uploadProduct(server, account.token, `Filler ${n}`);
    await productsPage();
    await page.locator("form").getByRole("status").or(page.locator("form").getByRole("alert")).filter({ hasText: /5/ }).first().waitFor();
    await page.getByLabel(/^Image\b/).setInputFiles(fixturePhoto("coffee.jpg"));
    await page.getByLabel(/^Name\b/).fill("One too many");
    await page.getByRole("button", { name: "Create product", exact: true }).click();
    await page.locator("form").getByRole("alert").filter({ hasText: /5/ }).first().waitFor();
    expect(await productCount()).toBe(5);
  }, SLOW);

  test("a template field the API refuses is marked at that field with its message, and no video is ordered", async () => {
    const product = (await api("/v1/products")).body.data.find((p: any) => p.name === "Cat mug");
    await page.goto(`/videos/new`);
    await page.getByRole("combobox", { name: /^Product\b/ }).selectOption(product.id);
    await page.locator('input[type="radio"][value="clean-card"]').check();
    const colour = page.locator('input[name$="background"]').first();
    const hintOnly = await describedText('input[name$="background"]');
    await colour.fill("light blue");
    await page.getByRole("button", { name: "Create video", exact: true }).click();
    await page.locator('input[name$="background"][aria-invalid="true"]').waitFor();
    expect((await describedText('input[name$="background"]')).length).toBeGreaterThan(hintOnly.length + 5);
    expect(new URL(page.url()).pathname).toBe("/videos/new");
    expect((await api("/v1/videos")).body.data).toEqual([]);
  }, SLOW);

  test("a video whose product photo went missing fails: its page says why and that the credits came back", async () => {
    const product = (await api("/v1/products")).body.data.find((p: any) => p.name === "Cat mug");
    await server.service.plugins.storage.delete(storageKeyOf(product.image_url));
    // A fresh form: the tab keeps the draft the test before left, with the colour the API refused.
    await page.evaluate("sessionStorage.clear()");
    await page.goto(`/videos/new`);
    await page.getByRole("combobox", { name: /^Product\b/ }).selectOption(product.id);
    await page.locator('input[type="radio"][value="clean-card"]').check();
    await page.getByRole("button", { name: "Create video", exact: true }).click();
    await page.waitForURL((url) => /^\/videos\/vid_/.test(url.pathname));
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const failed = await waitFor(() => api(`/v1/videos/${id}`), (res) => res.body.status === "failed", 60_000);
    const alert = page.getByRole("alert").filter({ hasText: failed.body.error.message });
    await alert.first().waitFor();
    expect(await alert.first().textContent()).toMatch(/credit/i);
    expect((await api("/v1/balance")).body.credits).toBe(CREDITS);
  }, SLOW);

  test("in a Turkish browser a failed cut-out says why in Turkish, on the product and in its attempts", async () => {
    const product = (await api("/v1/products")).body.data.find((p: any) => p.name.startsWith("Filler"));
    await server.service.plugins.storage.delete(storageKeyOf(product.original_image_url));
    expect((await server.api("POST", `/v1/products/${product.id}/dekupe/retry`, { token: account.token, body: {} })).status).toBe(202);
    const failed = await waitFor(() => api(`/v1/products/${product.id}`), (res) => res.body.dekupe.status === "failed", 60_000);
    expect(failed.body.dekupe.error_code).toBe("image_missing");
    const tr = await openContext(browser, server.base, { locale: "tr-TR" });
    try {
      await startSession(tr.context, server.base, account.token);
      await tr.page.goto(`/products/${product.id}`);
      const alert = tr.page.getByRole("alert").filter({ hasText: "Özgün fotoğraf depoda bulunamadı" });
      await alert.first().waitFor();
      await tr.page.locator("#attempts-title").waitFor();
      const page = await tr.page.locator("main").textContent();
      expect(page).not.toContain(failed.body.dekupe.error);
      expect(page?.split("Özgün fotoğraf depoda bulunamadı").length).toBe(3);
    } finally {
      await tr.context.close();
    }
  }, SLOW);

  test("every request went to the service itself, and the CSP refused nothing", () => {
    expect(foreignRequests(log, server.base)).toEqual([]);
    expect(cspViolations(log)).toEqual([]);
  });
});
