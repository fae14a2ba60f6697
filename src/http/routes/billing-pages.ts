// The small HTML pages a payer sees: the manual provider's payment page, and the return and cancel pages.
import type { TopUpRow } from "../../billing";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function money(row: TopUpRow): string {
  return `${(row.amount / 100).toFixed(2)} ${row.currency.toUpperCase()}`;
}

export function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · vitrin</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
  .card { border: 1px solid #ddd; border-radius: 12px; padding: 1.5rem; }
  dt { color: #666; } dd { margin: 0 0 .75rem; font-weight: 600; }
  .status { display: inline-block; padding: .1rem .6rem; border-radius: 999px; background: #eee; }
</style></head>
<body><div class="card"><h1>${escape(title)}</h1>${body}</div></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

function details(row: TopUpRow): string {
  return `<dl>
<dt>Top-up</dt><dd><code>${escape(row.id)}</code></dd>
<dt>Amount</dt><dd>${escape(money(row))}</dd>
<dt>Credits</dt><dd>${row.credits}</dd>
<dt>Status</dt><dd><span class="status">${escape(row.status)}</span></dd>
</dl>`;
}

/** The way back to Studio's Balance page, which shows this top-up's status (same origin: the service serves both). */
function backToStudio(row: TopUpRow): string {
  return `<p><a href="/balance?top_up=${encodeURIComponent(row.id)}">Back to your balance in vitrin Studio</a></p>`;
}

export function manualPaymentPage(row: TopUpRow): Response {
  const next =
    row.status === "paid"
      ? "<p>This top-up is paid and its credits are on the account.</p>"
      : row.status === "pending"
        ? `<p>This service takes payments by hand. Pay ${escape(money(row))} as agreed with the operator and quote the
top-up id above; once they have received it, they confirm the top-up and the credits appear on your balance.</p>`
        : `<p>This top-up is ${escape(row.status)}; start a new one if you still want credits.</p>`;
  return page("Top up your credits", details(row) + next + backToStudio(row));
}

export function returnPage(row: TopUpRow): Response {
  const text =
    row.status === "paid"
      ? "Thank you: the payment went through and the credits are on your balance."
      : row.status === "pending"
        ? "Thank you: the payment is being processed. The credits appear once the payment provider confirms it."
        : `The payment did not go through (${escape(row.status)}). You can start a new top-up.`;
  return page(row.status === "paid" ? "Payment received" : "Payment status", details(row) + `<p>${text}</p>` + backToStudio(row));
}

export function cancelPage(row: TopUpRow): Response {
  return page("Payment cancelled", details(row) + "<p>Nothing was charged. You can close this page or start again.</p>" + backToStudio(row));
}

export function notFoundPage(): Response {
  return page("Not found", "<p>There is no such top-up.</p>", 404);
}
