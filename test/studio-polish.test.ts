// Studio's polish points from the shop-owner trial, each checked in chromium: colour pickers and a currency list on
// the video form, a hint under the cut-out's frame choice, the Videos list's format in a column of its own, no
// checkerboard behind an original photo, the marks Retry will use said beside it, a tidy phone header, and the layouts of webhook endpoints, Clear marks and
// the top-up form. One service with demo data (a product with its cut-out, a completed video) for all of them.
import { describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { onPostgres } from "./helpers";
import { axeViolations, describeBrowser, openPage, signedInSuite, switchLanguage, type StudioServer } from "./support/browser";
import { renderVideo, uploadProduct } from "./support/studio-demo";

// Not on the PostgreSQL passes: these are layouts and words of the browser UI, which the database does not change.
const suite = onPostgres ? describe.skip : describeBrowser;
const SLOW = 240_000;

let server: StudioServer;
let browser: Browser;
let page: Page;
let account: { id: string; token: string };
let product: any;

const visit = (path: string, heading: RegExp, width?: number) => openPage(page, path, heading, width);
const useLanguage = (name: "English" | "Türkçe") => switchLanguage(page, name);

suite("Studio: the shop-owner trial's polish points in chromium", () => {
  signedInSuite(
    { name: "Polish shop", credits: 40, language: "en" },
    (s) => void ({ server, browser, page, account } = s),
    async (s) => {
      product = await uploadProduct(s.server, s.account.token, "Stoneware coffee cup");
      await renderVideo(s.server, s.account.token, product.id);
    },
  );

  test("video form: each colour has a picker kept in step with its text, and the currency is a list that sends its code", async () => {
    await visit(`/videos/new?product=${product.id}`, /^Create video$/);
    await page.getByRole("radio", { name: /Clean card/ }).check();
    const text = page.getByRole("textbox", { name: "Main colour", exact: true });
    const picker = page.getByLabel("Main colour: colour picker");
    // Empty (the template's own colour) or not yet a colour: a crossed-out swatch, not the black the picker holds.
    expect(await picker.getAttribute("class")).toBe("colour-unset");
    await picker.fill("#ff8800");
    expect(await text.inputValue()).toBe("#ff8800");
    expect(await picker.getAttribute("class")).toBeNull();
    await text.fill("red");
    expect(await picker.getAttribute("class")).toBe("colour-unset");
    await text.fill("#1A2B3C");
    expect(await picker.inputValue()).toBe("#1a2b3c");
    expect(await page.getByText(/#rrggbb|ISO 4217/).count()).toBe(0);

    const currency = page.getByRole("combobox", { name: /^Currency\b/ });
    expect(await currency.inputValue()).toBe("");
    const codes = await currency.locator("option").evaluateAll((os) => os.map((o: any) => o.value as string));
    expect(codes).toEqual(expect.arrayContaining(["", "USD", "EUR", "TRY", "GBP", "JPY", "SAR"]));
    await currency.selectOption("EUR");
    expect(await axeViolations(page)).toEqual([]);
    const sent = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/v1/videos");
    await page.getByRole("button", { name: "Create video", exact: true }).click();
    const prompt = (await sent).postDataJSON().user_prompt;
    expect(prompt).toMatchObject({ currency: "EUR", colors: { primary: "#1A2B3C" } });
  }, SLOW);

  test("video form: each hint is said once where it belongs: how a colour is given by the group of colours, the old price its own", async () => {
    await visit(`/videos/new?product=${product.id}`, /^Create video$/);
    await page.getByRole("radio", { name: /Flash sale/ }).check();
    const colours = page.getByRole("group", { name: "Colours" });
    expect(await colours.locator(":scope > p.hint").textContent()).toBe(
      "Your brand's colours. Pick a colour, or type its code (such as #1a2b3c). Leave it empty for the template's own.",
    );
    expect(await page.getByText("Pick a colour, or type its code", { exact: false }).count()).toBe(1);
    // Said once on screen, still heard on each colour: the group's hint describes every one of its fields.
    const groupHint = await colours.getAttribute("aria-describedby");
    expect(groupHint).toBeTruthy();
    for (const name of ["Main colour", "Accent colour", "Background", "Text colour"]) {
      expect((await page.getByRole("textbox", { name, exact: true }).getAttribute("aria-describedby"))!.split(" ")).toContain(groupHint!);
    }
    const hintOf = async (name: string) => {
      const id = (await page.getByRole("textbox", { name, exact: true }).getAttribute("aria-describedby"))!.split(" ")[0];
      return page.locator(`[id="${id}"]`).textContent();
    };
    expect(await hintOf("Old price")).toBe("The price before the discount, shown struck through; like the price, a number or text.");
    expect(await hintOf("Price")).toStartWith("A number (formatted in the video's language and currency)");
  }, SLOW);

  test("video form: the Language box names the account's language, and the gallery's pictures speak the video's", async () => {
    await visit(`/videos/new?product=${product.id}`, /^Create video$/);
    await useLanguage("Türkçe");
    const language = page.getByRole("combobox", { name: /^Dil\b/ });
    // The templates are named, and the chosen one described, in the interface's language.
    const card = page.getByRole("radio", { name: /Sade kart/ });
    await card.check();
    const about = page.locator(`#${await card.getAttribute("aria-describedby")}`);
    expect(await about.textContent()).toStartWith("Mağazalar ve akışlar için sakin bir kart");
    // The account speaks English: a Turkish Studio says so rather than "the account's default".
    expect(await language.locator("option").first().textContent()).toBe("Hesabın: İngilizce");
    // Shown whole in its third of the row: the text, in the select's font, fits inside it beside the arrow.
    const fits = await language.evaluate((select: any) => {
      const style = select.ownerDocument.defaultView.getComputedStyle(select);
      const context = select.ownerDocument.createElement("canvas").getContext("2d");
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      return context.measureText(select.options[select.selectedIndex].text).width <= room;
    });
    expect(fits).toBe(true);
    const pictures = () => page.locator(".gallery img").evaluateAll((imgs) => imgs.map((i: any) => (i.getAttribute("src") as string | null) ?? ""));
    expect((await pictures()).filter((src) => src.includes("language="))).toEqual([]);
    await language.selectOption("tr");
    expect((await pictures()).some((src) => src.endsWith("?language=tr"))).toBe(true);
    await useLanguage("English");
  }, SLOW);

  test("video form: a template's picture shows a spinner until it has come, and a note when it cannot be had", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const previews = /\/v1\/templates\/[^/?]+\/preview/;
    // Routing turns the browser's cache off, so every picture is asked for here: Flash sale's fails, the others wait.
    await page.route(previews, async (route) => {
      if (route.request().url().includes("/flash-sale/")) return route.fulfill({ status: 500, body: "" });
      await held;
      await route.continue();
    });
    try {
      // Tall enough for every card to load at once (the pictures load lazily, as they come into view).
      await page.setViewportSize({ width: 1280, height: 2000 });
      await page.goto(`/videos/new?product=${product.id}`);
      const card = (name: RegExp) => page.locator(".gallery label").filter({ has: page.getByRole("radio", { name }) });
      await card(/Spotlight/).locator(".gallery-picture .spinner").waitFor();
      await card(/Flash sale/).getByText("No preview").waitFor();
      expect(await card(/Flash sale/).locator(".spinner").count()).toBe(0);
      // The note is for the eye: the radio is still named by its template alone.
      await page.getByRole("radio", { name: /^Flash sale/ }).waitFor();
      release();
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll(".gallery-picture .spinner").length === 0, undefined, { timeout: 30_000 });
      const states = await page.locator(".gallery-picture").evaluateAll((pictures: any[]) => pictures.map((p) => p.dataset.state));
      expect(states.filter((state) => state === "ready")).toHaveLength(states.length - 1);
      expect(await card(/Spotlight/).locator("img").evaluate((img: any) => img.naturalWidth > 0)).toBe(true);
    } finally {
      release();
      await page.unroute(previews);
    }
  }, SLOW);

  test("video form: a template starts in its own format until the customer picks one, which then stays", async () => {
    await visit(`/videos/new?product=${product.id}`, /^Create video$/);
    const format = page.getByRole("combobox", { name: /^Format\b/ });
    // The format follows a template on the render after its effect: waited for, not read at once.
    const formatBecomes = (value: string) =>
      page.waitForFunction((v: string) => (globalThis as any).document.querySelector('select[name="format"]').value === v, value, { timeout: 5000 });
    await page.getByRole("radio", { name: /Feature split/ }).check();
    await formatBecomes("16:9");
    await page.getByRole("radio", { name: /Clean card/ }).check();
    await formatBecomes("1:1");
    await format.selectOption("4:5");
    await page.getByRole("radio", { name: /Feature split/ }).check();
    // Given time to move, it does not: the customer's pick stays.
    await Bun.sleep(500);
    expect(await format.inputValue()).toBe("4:5");
  }, SLOW);

  test("a page that does not exist links back to the start, which for a shop is Products", async () => {
    await visit("/prodcts", /^Page not found$/);
    await page.getByRole("link", { name: "Go to the start page" }).click();
    await page.getByRole("heading", { level: 1, name: /^Products$/ }).waitFor();
  }, SLOW);

  test("cut-out panel: the frame choice says what each frame does, in English and in Turkish", async () => {
    await visit(`/products/${product.id}`, /Stoneware coffee cup/);
    const frame = page.getByRole("combobox", { name: /^Next attempt's frame/ });
    expect(await frame.getAttribute("aria-describedby")).toBeTruthy();
    await page.getByText("Around the product: the cut-out is trimmed to the product.", { exact: false }).waitFor();
    await useLanguage("Türkçe");
    await page.getByText("Ürünün çevresi: dekupe ürünün sınırlarına göre kırpılır.", { exact: false }).waitFor();
    await useLanguage("English");
  }, SLOW);

  test("hint panel: `Clear marks` is a button of its own width, not the panel's", async () => {
    await visit(`/products/${product.id}`, /Stoneware coffee cup/);
    const area = page.getByRole("application");
    await area.waitFor();
    await area.click({ position: { x: 30, y: 30 } });
    const clear = page.getByRole("button", { name: "Clear marks" });
    const [button, panel] = await Promise.all([clear.boundingBox(), page.locator(".hint-picker").boundingBox()]);
    expect(button!.width).toBeLessThan(panel!.width / 2);
    // Unsent marks are kept for the product's next visit: this one is cleared, so later tests start without marks.
    await clear.click();
  }, SLOW);

  test("Videos list: the format has its own column, and the language column names only the language", async () => {
    await visit("/videos", /^Videos$/);
    expect(await page.getByRole("columnheader", { name: "Format" }).count()).toBe(1);
    const row = page.locator("tbody tr").first();
    expect((await row.locator('td[data-label="Language"]').textContent())?.trim()).toBe("English");
    expect((await row.locator('td[data-label="Format"]').textContent())?.trim()).toMatch(/^\d+:\d+$/);
  }, SLOW);

  test("product page: a checkerboard behind the cut-out, none behind the original photo once it is used again", async () => {
    await visit(`/products/${product.id}`, /Stoneware coffee cup/);
    expect(await page.locator("main .checkerboard").count()).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Use the original photo", exact: true }).click();
    await page.getByText("The original photo is in use again, without a cut-out.").waitFor();
    const photo = page.locator("main img.product-photo");
    await photo.waitFor();
    expect(await photo.getAttribute("class")).not.toContain("checkerboard");
    await visit("/products", /^Products$/);
    expect(await page.locator("main img.thumb.checkerboard").count()).toBe(0);
  }, SLOW);

  test("beside Retry a line says which marks it will use; the marks stay on offer after `Use the original photo`", async () => {
    // The test before used the original photo again: a retry is still left, so the marks panel is there.
    await visit(`/products/${product.id}`, /Stoneware coffee cup/);
    const note = page.getByTestId("retry-marks");
    await note.getByText("To steer the next attempt, mark the product on the photo").waitFor();
    const area = page.getByRole("application");
    await area.click({ position: { x: 40, y: 40 } });
    await note.getByText("Retry uses your 1 mark from “Point to the product”.").waitFor();
    await page.getByRole("button", { name: "Leave out", exact: true }).click();
    await area.click({ position: { x: 10, y: 10 } });
    await note.getByText("Retry uses your 2 marks").waitFor();
    await page.getByRole("button", { name: "Clear marks" }).click();
    await note.getByText("To steer the next attempt").waitFor();
    // Cleared marks start the next ones on the product again, not left out.
    await page.waitForFunction(() => (globalThis as any).document.querySelector(".hint-mode button")?.getAttribute("aria-pressed") === "true", undefined, { timeout: 5000 });
    expect(await page.getByRole("button", { name: "Leave out", exact: true }).getAttribute("aria-pressed")).toBe("false");
  }, SLOW);

  test("at 375 px the header's links share one row in both languages, and the video form's selects show their choice whole", async () => {
    for (const lang of ["English", "Türkçe"] as const) {
      await visit("/videos/new", lang === "English" ? /^Create video$/ : /^Video oluştur$/, 375);
      const tops = await page.locator("nav ul a").evaluateAll((as) => as.map((a) => Math.round(a.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      // Every link is whole on screen: the row fits without its own sideways scroll.
      expect(await page.locator("nav ul").evaluate((ul) => ul.scrollWidth <= ul.clientWidth)).toBe(true);
      const selects = await page.locator("main .form-row select").evaluateAll((ss) => ss.map((s) => s.getBoundingClientRect().width));
      for (const width of selects) expect(width).toBeGreaterThan(300);
      if (lang === "English") await useLanguage("Türkçe");
    }
    await useLanguage("English");
  }, SLOW);

  test("at 320 px (the narrowest phone, WCAG's reflow width) each header row is one line in both languages, nothing scrolls sideways, and the gallery shows two templates a row", async () => {
    for (const lang of ["English", "Türkçe"] as const) {
      await visit("/products", lang === "English" ? /^Products$/ : /^Ürünler$/, 320);
      const [brand, switcher, signOut] = await Promise.all(
        [".header-row .brand", ".header-row .lang-switch", ".header-row .sign-out"].map((at) => page.locator(at).boundingBox()),
      );
      // One row: the switch and Sign out sit beside the logo, not under it.
      for (const box of [switcher, signOut]) expect(box!.y).toBeLessThan(brand!.y + brand!.height);
      expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(320);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      expect(await page.locator("nav ul").evaluate((ul) => ul.scrollWidth <= ul.clientWidth)).toBe(true);
      if (lang === "English") await useLanguage("Türkçe");
    }
    await useLanguage("English");
    await visit(`/videos/new?product=${product.id}`, /^Create video$/, 320);
    const tops = await page.locator(".gallery label").evaluateAll((cards) => cards.map((c) => Math.round(c.getBoundingClientRect().top)));
    expect(tops[0]).toBe(tops[1]);
    expect(new Set(tops).size).toBe(Math.ceil(tops.length / 2));
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  }, SLOW);

  test("webhook endpoint: its actions on one row, and its long URL wrapped only between its parts (after a / . ? & = or -)", async () => {
    const url = `${server.base}/webhooks/vitrin-shop-sync/products-and-videos/endpoint-receiver-number-one?source=studio`;
    const made = await server.api("POST", "/v1/webhook_endpoints", { token: account.token, body: { url, events: ["*"], description: "Shop sync" } });
    expect(made.status).toBe(201);
    await visit("/developers", /^Developers$/);
    const row = page.locator("tr", { hasText: "Shop sync" });
    const buttonTops = await row.locator(".endpoint-actions button").evaluateAll((bs) => bs.filter((b) => b.checkVisibility()).map((b) => Math.round(b.getBoundingClientRect().top)));
    expect(buttonTops.length).toBe(3);
    expect(new Set(buttonTops).size).toBe(1);
    // The character before each line break of the URL, found by the top of each character's box.
    const breaksAfter = await row.locator(".endpoint-url").evaluate((el: any) => {
      const doc = el.ownerDocument;
      const chars: { ch: string; top: number }[] = [];
      const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.textContent!.length; i++) {
          const range = doc.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          chars.push({ ch: node.textContent![i]!, top: Math.round(range.getBoundingClientRect().top) });
        }
      }
      const before: string[] = [];
      for (let i = 1; i < chars.length; i++) if (chars[i]!.top > chars[i - 1]!.top) before.push(chars[i - 1]!.ch);
      return before;
    });
    expect(breaksAfter.length).toBeGreaterThan(0);
    for (const ch of breaksAfter) expect("/.?&=-").toContain(ch);
  }, SLOW);

  test("top-up: an amount too small shows its error without moving the Currency field out of line", async () => {
    await visit("/balance", /^Balance$/);
    await page.getByLabel(/^Amount\b/).fill("5");
    await page.getByRole("button", { name: "Top up", exact: true }).click();
    await page.locator(".top-up-fields .field-error").waitFor();
    const amount = await page.getByLabel(/^Amount\b/).boundingBox();
    const currency = await page.getByRole("combobox", { name: /^Currency\b/ }).boundingBox();
    expect(Math.abs(amount!.y - currency!.y)).toBeLessThan(1);
    expect(Math.abs(amount!.height - currency!.height)).toBeLessThan(1);
    // Typing another amount takes the old error away: it spoke of the amount that was.
    await page.getByLabel(/^Amount\b/).fill("25");
    expect(await page.locator(".top-up-fields .field-error").count()).toBe(0);
    // So does another currency, after a refusal made in the old one.
    await page.getByLabel(/^Amount\b/).fill("5");
    await page.getByRole("button", { name: "Top up", exact: true }).click();
    await page.locator(".top-up-fields .field-error").waitFor();
    await page.getByRole("combobox", { name: /^Currency\b/ }).selectOption("eur");
    expect(await page.locator(".top-up-fields .field-error").count()).toBe(0);
  }, SLOW);
});
