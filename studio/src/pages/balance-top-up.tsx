// The Balance page's top-up: a form that says, as the amount is typed (as the UI language writes it), the credits it
// buys at the service's rate, starts the top-up and sends the browser on to its payment page; on return, the status of
// the last top-up started here (kept in sessionStorage: only its id, never a secret), polled while pending.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, fieldError } from "../api";
import { fieldsOf, formMessageOf, messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { SelectField, TextField } from "../components/field";
import { StatusBadge } from "../components/status-badge";
import { useFocusFirstInvalid, usePoll } from "../hooks";
import { useLang, type Lang } from "../i18n";
import { formatAmount, parseAmount } from "../i18n/amount";
import { useBalanceMessages } from "../i18n/balance";

type TopUp = Awaited<ReturnType<typeof loadTopUp>>;
type Options = Awaited<ReturnType<typeof loadOptions>>;

const LAST_TOP_UP = "vitrin.studio.topUp";
/** The top-up whose panel was dismissed in this tab: not brought back as "the newest pending" on the next visit. */
const DISMISSED_TOP_UP = "vitrin.studio.topUpDismissed";
/** Until the service's options arrive (or if they cannot be read): its defaults, VITRIN_CURRENCIES and MIN_TOP_UP. */
const FALLBACK_CURRENCIES = ["usd", "eur", "try", "gbp"];
const FALLBACK_MIN = 1000;

function loadTopUp(id: string) {
  return must(api.GET("/v1/balance/top-ups/{id}", { params: { path: { id } } }));
}

function loadOptions() {
  return must(api.GET("/v1/balance/top-up-options"));
}

/** The credits `minor` units buy at `rate` credits a major unit, counted as the service counts them (rounded down). */
function creditsFor(minor: number, rate: number): number {
  return Math.floor((minor * rate) / 100 + 1e-9);
}

export function money(minor: number, currency: string, lang: Lang): string {
  try {
    return new Intl.NumberFormat(lang, { style: "currency", currency: currency.toUpperCase() }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

function remembered(): string | null {
  try {
    return sessionStorage.getItem(LAST_TOP_UP);
  } catch {
    return null;
  }
}

function dismissed(): string | null {
  try {
    return sessionStorage.getItem(DISMISSED_TOP_UP);
  } catch {
    return null;
  }
}

/** The newest top-up still waiting for its payment: for a tab that did not start it (null when none or unreadable). */
async function newestPending(): Promise<string | null> {
  const { data } = await api.GET("/v1/balance/top-ups", { params: { query: { status: "pending", limit: 1 } } });
  const found = data?.data[0]?.id ?? null;
  return found && found !== dismissed() ? found : null;
}

function remember(id: string | null): void {
  try {
    if (id) sessionStorage.setItem(LAST_TOP_UP, id);
    else sessionStorage.removeItem(LAST_TOP_UP);
  } catch {
    // Storage off: the status just is not shown on return.
  }
}

/** The amount field's text: the language's own way of writing it, kept in step when the UI language changes. */
function useAmountText(lang: Lang) {
  const [text, setText] = useState(() => formatAmount(FALLBACK_MIN, lang));
  const shownIn = useRef(lang);
  useEffect(() => {
    // "10,00" typed in Turkish reads "10.00" after a switch to English, never a different amount.
    const read = parseAmount(text, shownIn.current);
    if (read.ok) setText(formatAmount(read.minor, lang));
    shownIn.current = lang;
  }, [lang]);
  /** On leaving the field: what was typed, written back as the language writes it ("25,5" → "25,50"). */
  const tidy = () => {
    const read = parseAmount(text, lang);
    if (read.ok) setText(formatAmount(read.minor, lang));
  };
  return { text, setText, tidy };
}

/** The service's top-up options (currencies, their rates, the amounts allowed), or null until read or when unreadable. */
function useTopUpOptions(): Options | null {
  const [options, setOptions] = useState<Options | null>(null);
  useEffect(() => {
    loadOptions().then(setOptions, () => setOptions(null));
  }, []);
  return options;
}

/** What the typed amount buys, said as it is typed; nothing while it cannot be read or is under the least top-up. */
function Buys({ text, currency, options }: { text: string; currency: string; options: Options | null }) {
  const m = useBalanceMessages();
  const { lang } = useLang();
  const read = parseAmount(text, lang);
  const rate = options?.currencies.find((c) => c.currency === currency)?.credits_per_unit;
  const shown = read.ok && rate !== undefined && read.minor >= options!.min_amount && read.minor <= options!.max_amount;
  const credits = shown ? creditsFor(read.minor, rate) : 0;
  return (
    <p class="hint" aria-live="polite" data-testid="top-up-buys">
      {shown && credits > 0 ? m("buys", { amount: money(read.minor, currency, lang), credits }) : ""}
    </p>
  );
}

/** The payment page's address; vitrin's own page (the manual provider's) is told Studio's language. */
function paymentPage(url: string, lang: Lang): string {
  const target = new URL(url, window.location.href);
  if (target.origin === window.location.origin) target.searchParams.set("lang", lang);
  return target.href;
}

export function TopUpForm() {
  const m = useBalanceMessages();
  const { lang } = useLang();
  const amount = useAmountText(lang);
  const options = useTopUpOptions();
  const currencies = options?.currencies.map((c) => c.currency) ?? FALLBACK_CURRENCIES;
  const min = options?.min_amount ?? FALLBACK_MIN;
  // A Turkish shop pays in lira unless it picks another currency (or the service takes no lira).
  const [picked, setCurrency] = useState<string | null>(null);
  const preferred = lang === "tr" && currencies.includes("try") ? "try" : currencies.includes("usd") ? "usd" : currencies[0];
  const currency = picked && currencies.includes(picked) ? picked : preferred;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, fields.amount ? fields : null);
  // A changed amount or currency answers the old error (said in the old amount's terms): it goes until the next Top up.
  const changed = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setFields({});
    setError(null);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const read = parseAmount(amount.text, lang);
    const example = formatAmount(2550, lang);
    // Never a guess: what cannot be read one way only is sent back to the customer, with the way to write it.
    if (!read.ok) {
      setFields({ amount: m(read.reason === "ambiguous" ? "amountAmbiguous" : "amountInvalid", { text: amount.text.trim(), example }) });
      return;
    }
    // The API counts minor units (1000 = 10.00): say it in the units the field uses rather than send a refused number.
    if (read.minor < min) {
      setFields({ amount: m("amountTooSmall", { min: money(min, currency, lang) }) });
      return;
    }
    amount.setText(formatAmount(read.minor, lang));
    setFields({});
    setBusy(true);
    try {
      const topUp = await must(api.POST("/v1/balance/top-up", { body: { amount: read.minor, currency } }));
      remember(topUp.id);
      // What it buys was said before the button was pressed: straight on to the payment page.
      if (topUp.payment_url) window.location.assign(paymentPage(topUp.payment_url, lang));
      else window.location.reload();
    } catch (err) {
      setFields(fieldsOf(err));
      setError(formMessageOf(err, m("network")));
      setBusy(false);
    }
  };
  return (
    <form ref={formRef} class="card form" onSubmit={submit} aria-labelledby="top-up-heading" noValidate>
      <h2 id="top-up-heading">{m("topUp")}</h2>
      <p class="hint">{m("topUpIntro")}</p>
      <div class="top-up-fields">
        <TextField
          label={m("amount")}
          inputMode="decimal"
          autoComplete="off"
          hint={m("amountHint", { min: money(min, currency, lang) })}
          value={amount.text}
          onValue={changed(amount.setText)}
          onBlur={amount.tidy}
          error={fieldError(fields, "amount")}
          required
        />
        <SelectField
          label={m("currency")}
          value={currency}
          onValue={changed(setCurrency)}
          options={currencies.map((c) => ({ value: c, label: c.toUpperCase() }))}
          error={fieldError(fields, "currency")}
        />
      </div>
      <Buys text={amount.text} currency={currency} options={options} />
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button type="submit" variant="primary" busy={busy}>
          {m("topUp")}
        </Button>
      </div>
    </form>
  );
}

/**
 * The last top-up started from this tab (or named by ?top_up=, or else the newest one still waiting for its payment),
 * until dismissed; `onPaid` runs when it turns paid.
 */
export function TopUpStatus({ onPaid }: { onPaid(): void }) {
  const m = useBalanceMessages();
  const { lang } = useLang();
  const { query } = useLocation();
  const [id, setId] = useState<string | null>(() => query.top_up || remembered());
  const [topUp, setTopUp] = useState<TopUp | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wasPaid = useRef(false);
  const refresh = async () => {
    if (!id) return;
    try {
      const next = await loadTopUp(id);
      setTopUp(next);
      setError(null);
      if (next.status === "paid" && !wasPaid.current) {
        wasPaid.current = true;
        onPaid();
      }
    } catch (e) {
      setError(messageOf(e, m("network")));
    }
  };
  useEffect(() => {
    wasPaid.current = false;
    void refresh();
  }, [id]);
  // A tab that started nothing still shows a top-up waiting for its payment, with the way to its payment page.
  useEffect(() => {
    if (!id) newestPending().then((found) => found && setId(found), () => {});
  }, []);
  usePoll(topUp?.status === "pending", refresh, 3000);
  if (!id || (!topUp && !error)) return null;
  const dismiss = () => {
    try {
      if (id) sessionStorage.setItem(DISMISSED_TOP_UP, id);
    } catch {
      // Storage off: a dismissed pending top-up may show again on the next visit.
    }
    remember(null);
    setId(null);
    setTopUp(null);
  };
  const vars = topUp && { id: topUp.id, amount: money(topUp.amount, topUp.currency, lang), credits: topUp.credits, status: topUp.status };
  return (
    <section class="section" aria-labelledby="last-top-up">
      <h2 id="last-top-up">{m("lastTopUp")}</h2>
      {error && <Alert tone="error">{error}</Alert>}
      {topUp && vars && (
        <Alert tone={topUp.status === "paid" ? "success" : topUp.status === "pending" ? "info" : "warning"}>
          <p class="row">
            <StatusBadge status={topUp.status} />
            {topUp.status === "paid"
              ? m("topUpPaid", vars)
              : topUp.status === "pending"
                ? m("topUpPending", vars)
                : m("topUpFailed", { ...vars, reason: topUp.failure_reason ?? m("topUpNoReason") })}
          </p>
          <div class="row">
            {topUp.status === "pending" && topUp.payment_url && <LinkButton href={paymentPage(topUp.payment_url, lang)}>{m("openPayment")}</LinkButton>}
            <Button variant="ghost" onClick={dismiss}>
              {m("dismiss")}
            </Button>
          </div>
        </Alert>
      )}
    </section>
  );
}
