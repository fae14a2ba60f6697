// The small HTML pages a payer sees: the manual provider's payment page, and the return and cancel pages, in English
// or Turkish (the languages Studio speaks), as the browser's Accept-Language prefers; light or dark as the browser is.
import type { TopUpRow } from "../../billing";

type Lang = "en" | "tr";

const TEXTS = {
  en: {
    topUp: "Top-up",
    amount: "Amount",
    credits: "Credits",
    status: "Status",
    statuses: { pending: "pending", paid: "paid", expired: "expired", failed: "failed" } as Record<string, string>,
    back: "Back to your balance in vitrin Studio",
    payTitle: "Top up your credits",
    paid: "This top-up is paid and its credits are on the account.",
    byHand: (money: string) =>
      `This service takes payments by hand. Pay ${money} as agreed with the operator and quote the top-up id above; once they have received it, they confirm the top-up and the credits appear on your balance.`,
    byHandAsBelow: (money: string) =>
      `This service takes payments by hand. Pay ${money} as below and quote the top-up id above; once the operator has received it, they confirm the top-up and the credits appear on your balance.`,
    ended: (status: string) => `This top-up is ${status}; start a new one if you still want credits.`,
    receivedTitle: "Payment received",
    statusTitle: "Payment status",
    thanksPaid: "Thank you: the payment went through and the credits are on your balance.",
    thanksPending: "Thank you: the payment is being processed. The credits appear once the payment provider confirms it.",
    failed: (status: string) => `The payment did not go through (${status}). You can start a new top-up.`,
    cancelTitle: "Payment cancelled",
    cancelled: "Nothing was charged. You can close this page or start again.",
    notFoundTitle: "Not found",
    notFound: "There is no such top-up.",
  },
  tr: {
    topUp: "Yükleme",
    amount: "Tutar",
    credits: "Kredi",
    status: "Durum",
    statuses: { pending: "bekliyor", paid: "ödendi", expired: "süresi doldu", failed: "başarısız" } as Record<string, string>,
    back: "vitrin Stüdyo'daki bakiyenize dönün",
    payTitle: "Kredi yükleyin",
    paid: "Bu yükleme ödendi; kredileri hesapta.",
    byHand: (money: string) =>
      `Bu hizmette ödemeler elle alınır. ${money} tutarını işletmeciyle anlaştığınız gibi ödeyin ve yukarıdaki yükleme kimliğini belirtin; ödemeyi aldıklarında yüklemeyi onaylarlar ve krediler bakiyenizde görünür.`,
    byHandAsBelow: (money: string) =>
      `Bu hizmette ödemeler elle alınır. ${money} tutarını aşağıdaki gibi ödeyin ve yukarıdaki yükleme kimliğini belirtin; işletmeci ödemeyi aldığında yüklemeyi onaylar ve krediler bakiyenizde görünür.`,
    ended: (status: string) => `Bu yüklemenin durumu: ${status}. Hâlâ kredi istiyorsanız yeni bir yükleme başlatın.`,
    receivedTitle: "Ödeme alındı",
    statusTitle: "Ödeme durumu",
    thanksPaid: "Teşekkürler: ödeme gerçekleşti ve krediler bakiyenizde.",
    thanksPending: "Teşekkürler: ödeme işleniyor. Krediler, ödeme sağlayıcısı onayladığında görünür.",
    failed: (status: string) => `Ödeme gerçekleşmedi (${status}). Yeni bir yükleme başlatabilirsiniz.`,
    cancelTitle: "Ödeme iptal edildi",
    cancelled: "Hiçbir ücret alınmadı. Bu sayfayı kapatabilir ya da yeniden başlayabilirsiniz.",
    notFoundTitle: "Bulunamadı",
    notFound: "Böyle bir yükleme yok.",
  },
};

/**
 * The language Studio asked for (`?lang=`, added to the payment page's address by Studio's top-up form), else the one
 * of ours the browser's Accept-Language ranks highest, else English.
 */
export function pageLanguage(request: Request): Lang {
  const asked = new URL(request.url).searchParams.get("lang");
  if (asked === "en" || asked === "tr") return asked;
  return browserLanguage(request.headers.get("accept-language") ?? "");
}

/**
 * English or Turkish as an Accept-Language header ranks them (`tr-TR,tr;q=0.9,en;q=0.8`): by q-value, the first
 * listed on a tie; `q=0` means "not this one" and a malformed q drops its entry; neither named, English.
 */
function browserLanguage(header: string): Lang {
  const ranked = header
    .split(",")
    .map((part) => {
      // Spaces may sit around the ";" and "=" (`tr ; q = 0.8`): they are dropped before reading.
      const [tag = "", ...params] = part.toLowerCase().replace(/\s+/g, "").split(";");
      const q = params.find((p) => p.startsWith("q="))?.slice(2);
      return { base: tag.split("-")[0], q: q === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(q) ? Number(q) : 0 };
    })
    .filter((l) => (l.base === "en" || l.base === "tr") && l.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked[0]?.base === "tr" ? "tr" : "en";
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function money(row: TopUpRow, lang: Lang): string {
  return new Intl.NumberFormat(lang === "tr" ? "tr-TR" : "en-US", { style: "currency", currency: row.currency.toUpperCase() }).format(row.amount / 100);
}

export function page(title: string, body: string, lang: Lang = "en", status = 200): Response {
  const html = `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · vitrin</title>
<meta name="color-scheme" content="light dark">
<style>
  :root { color-scheme: light dark; --ink: #222; --ink-2: #595959; --bg: #fff; --line: #ddd; --chip: #eee; --link: #0b57d0; }
  @media (prefers-color-scheme: dark) {
    :root { --ink: #eee; --ink-2: #b3b3b3; --bg: #16181c; --line: #3a3d44; --chip: #2e3138; --link: #8ab4f8; }
  }
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 4rem auto; padding: 0 1rem; color: var(--ink); background: var(--bg); }
  a { color: var(--link); }
  .card { border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem; }
  dt { color: var(--ink-2); } dd { margin: 0 0 .75rem; font-weight: 600; }
  .status { display: inline-block; padding: .1rem .6rem; border-radius: 999px; background: var(--chip); }
  .instructions { border-left: 3px solid var(--line); padding-left: 1rem; white-space: normal; overflow-wrap: anywhere; }
</style></head>
<body><main class="card"><h1>${escape(title)}</h1>${body}</main></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", vary: "accept-language" } });
}

const statusWord = (row: TopUpRow, lang: Lang) => TEXTS[lang].statuses[row.status] ?? row.status;

/** The status on its own (the badge) starts with a capital, as Studio shows it; in a sentence it stays lower case. */
function statusLabel(row: TopUpRow, lang: Lang): string {
  const word = statusWord(row, lang);
  return word.charAt(0).toLocaleUpperCase(lang) + word.slice(1);
}

function details(row: TopUpRow, lang: Lang): string {
  const t = TEXTS[lang];
  return `<dl>
<dt>${t.topUp}</dt><dd><code>${escape(row.id)}</code></dd>
<dt>${t.amount}</dt><dd>${escape(money(row, lang))}</dd>
<dt>${t.credits}</dt><dd>${row.credits}</dd>
<dt>${t.status}</dt><dd><span class="status">${escape(statusLabel(row, lang))}</span></dd>
</dl>`;
}

/** The way back to Studio's Balance page, which shows this top-up's status (same origin: the service serves both). */
function backToStudio(row: TopUpRow, lang: Lang): string {
  return `<p><a href="/balance?top_up=${encodeURIComponent(row.id)}">${TEXTS[lang].back}</a></p>`;
}

/** The operator's payment instructions as paragraphs (a blank line between two) of lines, every character escaped. */
function instructionsHtml(text: string): string {
  const paragraphs = text.replace(/\\n/g, "\n").split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  return `<div class="instructions">${paragraphs.map((p) => `<p>${p.split("\n").map(escape).join("<br>")}</p>`).join("")}</div>`;
}

/** `instructions`: the operator's own words on how to pay (VITRIN_MANUAL_PAYMENT_INSTRUCTIONS), shown while it waits. */
export function manualPaymentPage(row: TopUpRow, lang: Lang, instructions: string | null = null): Response {
  const t = TEXTS[lang];
  const next =
    row.status === "paid"
      ? `<p>${t.paid}</p>`
      : row.status === "pending"
        ? instructions
          ? `<p>${escape(t.byHandAsBelow(money(row, lang)))}</p>${instructionsHtml(instructions)}`
          : `<p>${escape(t.byHand(money(row, lang)))}</p>`
        : `<p>${escape(t.ended(statusWord(row, lang)))}</p>`;
  return page(t.payTitle, details(row, lang) + next + backToStudio(row, lang), lang);
}

export function returnPage(row: TopUpRow, lang: Lang): Response {
  const t = TEXTS[lang];
  const text = row.status === "paid" ? t.thanksPaid : row.status === "pending" ? t.thanksPending : t.failed(statusWord(row, lang));
  return page(row.status === "paid" ? t.receivedTitle : t.statusTitle, details(row, lang) + `<p>${escape(text)}</p>` + backToStudio(row, lang), lang);
}

export function cancelPage(row: TopUpRow, lang: Lang): Response {
  const t = TEXTS[lang];
  return page(t.cancelTitle, details(row, lang) + `<p>${t.cancelled}</p>` + backToStudio(row, lang), lang);
}

export function notFoundPage(lang: Lang): Response {
  return page(TEXTS[lang].notFoundTitle, `<p>${TEXTS[lang].notFound}</p>`, lang, 404);
}
