// The cost of the video as the form stands: POST /v1/videos/estimate a moment after the last change (debounced), the
// answer in credits against the balance, or the problem the API found (its field errors show at the form's fields);
// and, next to `Create video`, how many credits are missing when the balance is short of that cost.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, asProblem, type ApiProblem } from "../api";
import { Alert } from "../components/alert";
import { Spinner } from "../components/spinner";
import { useT } from "../i18n";

export type VideoRequest = {
  product_id: string;
  template_id: string;
  user_prompt: Record<string, unknown>;
  language?: string;
  aspect_ratio?: "9:16" | "4:5" | "1:1" | "16:9";
  music?: string;
};

export type EstimateState = {
  loading: boolean;
  credits: number | null;
  available: number | null;
  sufficient: boolean;
  problem: ApiProblem | null;
};

const DEBOUNCE_MS = 350;

const NO_ESTIMATE: EstimateState = { loading: false, credits: null, available: null, sufficient: true, problem: null };

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
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(async () => {
      try {
        const { data, error } = await api.POST("/v1/videos/estimate", { body: request });
        // A slower answer to an older form must not overwrite the newer one.
        if (ticket !== latest.current) return;
        if (error || !data) setState({ ...NO_ESTIMATE, problem: asProblem(error) });
        else setState({ loading: false, credits: data.credits, available: data.available, sufficient: data.sufficient, problem: null });
      } catch {
        // No answer for this form: an older cost must not stand for it (nor hold the button back); the server decides.
        if (ticket === latest.current) setState(NO_ESTIMATE);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [key, returns]);
  return state;
}

/**
 * How many credits the balance lacks for the estimate on show, or null when nothing says it is short (no estimate
 * yet, a refused or failed one). A re-estimate under way keeps the last answer, as the cost on screen does, so the
 * button does not flicker on every keystroke.
 */
export function creditsShort(state: EstimateState): number | null {
  if (state.sufficient || state.problem || state.credits === null || state.available === null) return null;
  return Math.max(1, state.credits - state.available);
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

export function Estimate({ state }: { state: EstimateState }) {
  const t = useT();
  return (
    <div class="estimate-box" aria-live="polite">
      {state.credits !== null ? (
        <p class="estimate">
          {t("videoNew.estimate", { n: state.credits })} {state.loading && <Spinner small label="" />}
        </p>
      ) : state.loading ? (
        <p class="loading">
          <Spinner small label="" />{t("videoNew.estimating")}
        </p>
      ) : null}
      {state.problem && !state.problem.details?.length && <Alert tone="warning">{state.problem.message}</Alert>}
    </div>
  );
}
