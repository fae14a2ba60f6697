// The cost of the video as the form stands: POST /v1/videos/estimate a moment after the last change (debounced), the
// answer in credits against the balance, or the problem the API found (its field errors show at the form's fields,
// while the last valid input's cost stays on show, dimmed);
// and, next to `Create video`, how many credits are missing when the balance is short of that cost, or that the template
// needs a premium account.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, asProblem } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Spinner } from "../components/spinner";
import { useLoad } from "../hooks";
import { useLang, useT } from "../i18n";
import { templateWords, type Template } from "./videos-data";
import { creditsShort, estimateAnswered, estimateStarted, NO_ESTIMATE, type EstimateState } from "./video-estimate-state";

export { creditsShort, type EstimateState } from "./video-estimate-state";

const DEBOUNCE_MS = 350;

export type VideoRequest = {
  product_id: string;
  template_id: string;
  user_prompt: Record<string, unknown>;
  language?: string;
  aspect_ratio?: "9:16" | "4:5" | "1:1" | "16:9";
  music?: string;
};

/**
 * A number that grows each time the customer comes back to this tab or window: credits topped up in another tab (the
 * Balance page opened from the link next to the button) then count without changing the form or reloading it.
 */
function useReturns(): number {
  const [returns, setReturns] = useState(0);
  useEffect(() => {
    const back = () => {
      if (document.visibilityState === "visible") setReturns((n) => n + 1);
    };
    document.addEventListener("visibilitychange", back);
    window.addEventListener("focus", back);
    return () => {
      document.removeEventListener("visibilitychange", back);
      window.removeEventListener("focus", back);
    };
  }, []);
  return returns;
}

export function useEstimate(request: VideoRequest | null): EstimateState {
  const [state, setState] = useState<EstimateState>(NO_ESTIMATE);
  const latest = useRef(0);
  const key = JSON.stringify(request);
  const returns = useReturns();
  useEffect(() => {
    if (!request) return;
    const ticket = ++latest.current;
    setState((s) => estimateStarted(s, request.template_id));
    const timer = setTimeout(async () => {
      try {
        const { data, error } = await api.POST("/v1/videos/estimate", { body: request });
        // A slower answer to an older form must not overwrite the newer one.
        if (ticket !== latest.current) return;
        setState((previous) => estimateAnswered(previous, error || !data ? null : data, asProblem(error), request.template_id));
      } catch {
        // No answer for this form: an older cost must not stand for it (nor hold the button back); the server decides.
        if (ticket === latest.current) setState(NO_ESTIMATE);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [key, returns]);
  return state;
}

/** The words next to `Create video` while it is held back: the credits missing and the way to the top-up. */
export function CreditsShort({ id, state }: { id: string; state: EstimateState }) {
  const t = useT();
  const missing = creditsShort(state);
  // Always in the page, so a screen reader hears the sentence when it appears (a live region must exist before).
  return (
    <p id={id} class="hint" aria-live="polite">
      {missing !== null && (
        <>
          {t("videoNew.short", { n: missing, cost: state.credits!, available: state.available! })}{" "}
          <a href="/balance">{t("videoNew.topUp")}</a>
        </>
      )}
    </p>
  );
}

/**
 * Whether the chosen template needs a premium account this one is not: the server would refuse it (403), so the
 * button is held back. `premium` is the account's plan (null while unknown); the estimate's refusal says it too.
 */
export function premiumLocked(template: { premium: boolean } | null, premium: boolean | null, state: EstimateState): boolean {
  if (!template?.premium) return false;
  return premium === false || (premium === null && state.problem?.code === "forbidden");
}

/**
 * Whether `Create video` is held back, and by what: the balance short of the estimate (insufficient_credits) or a
 * premium template on a Standard account (403): the button waits instead of inviting a refusal; `describedBy` ties it
 * to the sentences beside it (CreditsShort, PremiumNeeded).
 */
export function useHoldBack(template: { premium: boolean } | null, estimate: EstimateState) {
  const plan = useLoad(() => must(api.GET("/v1/balance")));
  const short = creditsShort(estimate) !== null;
  const locked = premiumLocked(template, plan.data ? plan.data.is_premium : null, estimate);
  const describedBy = [short && "credits-short", locked && "premium-needed"].filter(Boolean).join(" ") || undefined;
  return { short, locked, describedBy };
}

/** The words next to `Create video` while a premium template holds it back on a Standard account. */
export function PremiumNeeded({ id, template }: { id: string; template: Template | null }) {
  const t = useT();
  const { lang } = useLang();
  return (
    <p id={id} class="hint" aria-live="polite">
      {template && t("videoNew.premiumOnly", { name: templateWords(template, lang).name })}
    </p>
  );
}

export function Estimate({ state, quiet = false }: { state: EstimateState; quiet?: boolean }) {
  const t = useT();
  return (
    <div class="estimate-box" aria-live="polite">
      {state.credits !== null ? (
        <p class="estimate">
          {t("videoNew.estimate", { n: state.credits })} {state.loading && <Spinner small label="" />}
        </p>
      ) : state.last !== null ? (
        // Dimmed, and said to be the last valid input's: the field's own message says what to fix.
        <div class="estimate-stale">
          <p class="estimate">
            {t("videoNew.estimate", { n: state.last })} {state.loading && <Spinner small label="" />}
          </p>
          <p class="hint">{t("videoNew.estimateStale")}</p>
        </div>
      ) : state.loading ? (
        <p class="loading">
          <Spinner small label="" />{t("videoNew.estimating")}
        </p>
      ) : null}
      {state.problem && !state.problem.details?.length && !quiet && <Alert tone="warning">{state.problem.message}</Alert>}
    </div>
  );
}
