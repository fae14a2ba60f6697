// The cost of the video as the form stands: POST /v1/videos/estimate a moment after the last change (debounced), the
// answer in credits against the balance, or the problem the API found (its field errors show at the form's fields).
import { useEffect, useRef, useState } from "preact/hooks";
import { api, asProblem, type ApiProblem } from "../api";
import { Alert } from "../components/alert";
import { Spinner } from "../components/spinner";
import { defineMessages, useT } from "../i18n";

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

export function useEstimate(request: VideoRequest | null): EstimateState {
  const [state, setState] = useState<EstimateState>({ loading: false, credits: null, available: null, sufficient: true, problem: null });
  const latest = useRef(0);
  const key = JSON.stringify(request);
  useEffect(() => {
    if (!request) return;
    const ticket = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(async () => {
      try {
        const { data, error } = await api.POST("/v1/videos/estimate", { body: request });
        // A slower answer to an older form must not overwrite the newer one.
        if (ticket !== latest.current) return;
        if (error || !data) setState({ loading: false, credits: null, available: null, sufficient: true, problem: asProblem(error) });
        else setState({ loading: false, credits: data.credits, available: data.available, sufficient: data.sufficient, problem: null });
      } catch {
        if (ticket === latest.current) setState((s) => ({ ...s, loading: false }));
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return state;
}

const useMessages = defineMessages({
  en: { short: "Your balance is {n} {n|credit|credits}: top up before creating this video.", topUp: "Go to the Balance page" },
  tr: { short: "Bakiyeniz {n} kredi: bu videoyu oluşturmadan önce yükleme yapın.", topUp: "Bakiye sayfasına git" },
});

export function Estimate({ state }: { state: EstimateState }) {
  const t = useT();
  const m = useMessages();
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
      {!state.sufficient && state.available !== null && (
        <Alert tone="warning">
          {m("short", { n: state.available })} <a href="/balance">{m("topUp")}</a>
        </Alert>
      )}
      {state.problem && !state.problem.details?.length && <Alert tone="warning">{state.problem.message}</Alert>}
    </div>
  );
}
