// What a Studio page says, for the Turkish check in test/studio-pages.test.ts: every visible text and accessible
// label on the page, the API's own data the page was given (names, ids, kinds: never translated), and which of the
// page's English texts a Turkish page still shows although they are no data.
import type { Page } from "playwright-core";

/** Visible text nodes and the labels a screen reader reads (aria-label, placeholder, alt, title), whitespace folded. */
const TEXTS_SCRIPT = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || el.closest("script, style") || !el.checkVisibility()) continue;
    const text = walker.currentNode.textContent.replace(/\\s+/g, " ").trim();
    if (text) out.push(text);
  }
  for (const el of document.querySelectorAll("[aria-label], [placeholder], [alt], [title]")) {
    for (const name of ["aria-label", "placeholder", "alt", "title"]) {
      const value = el.getAttribute(name);
      if (value) out.push(value.replace(/\\s+/g, " ").trim());
    }
  }
  return out;
})()`;

export async function pageTexts(page: Page): Promise<string[]> {
  return (await page.evaluate(TEXTS_SCRIPT)) as string[];
}

/** Collects every string value and object key of the JSON answers the page receives from now on. */
export function watchApiData(page: Page): Set<string> {
  const data = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === "string") data.add(value);
    else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        data.add(key);
        walk(inner);
      }
    }
  };
  page.on("response", async (response) => {
    if (!(response.headers()["content-type"] ?? "").includes("json")) return;
    walk(await response.json().catch(() => null));
  });
  return data;
}

/** What a Turkish page rightly shows as the English one does: the language switch's names, loanwords, a URL's start. */
const SAME_IN_TURKISH = ["English", "Türkçe", "Premium", "Plan", "https://"];

/**
 * The texts the Turkish page shows exactly as the English page does that are not the API's data: strings an
 * untranslated message or a hard-coded English word leaves behind. A text is data when a data string contains it, or
 * when nothing of four letters is left once the data strings (and the words above) are taken out of it.
 */
export function englishLeft(english: string[], turkish: string[], data: Set<string>): string[] {
  const shownInEnglish = new Set(english);
  const known = [...data, ...SAME_IN_TURKISH].filter((d) => d.length >= 3).sort((a, b) => b.length - a.length);
  const left = turkish.filter((text) => {
    if (!shownInEnglish.has(text)) return false;
    if (known.some((d) => d.includes(text))) return false;
    let rest = text;
    for (const d of known) rest = rest.split(d).join(" ");
    return /\p{L}{4,}/u.test(rest);
  });
  return [...new Set(left)];
}
