// The cost estimate's state as the video form shows it, and how an answer of POST /v1/videos/estimate changes it
// (plain TypeScript, no DOM, so tests run it outside a browser).
import type { ApiProblem } from "../problems";

export type EstimateState = {
  loading: boolean;
  credits: number | null;
  available: number | null;
  sufficient: boolean;
  problem: ApiProblem | null;
  /** While a field is invalid (credits null): the cost of the last form the API could estimate, or null. */
  last: number | null;
  /** The template of the form that cost (`credits` or `last`) was for: another template's cost is not this one's. */
  templateId: string | null;
};

/** What the API answers an estimate with. */
export type Cost = { credits: number; available: number; sufficient: boolean };

export const NO_ESTIMATE: EstimateState = { loading: false, credits: null, available: null, sufficient: true, problem: null, last: null, templateId: null };

/**
 * The state while the form with `templateId` is being estimated: the answer on show stays (no flicker on every
 * keystroke), but the last valid input's cost goes with a change of template, as it was another template's.
 */
export function estimateStarted(previous: EstimateState, templateId: string): EstimateState {
  return previous.templateId === templateId ? { ...previous, loading: true } : { ...previous, loading: true, last: null };
}

/**
 * The state after the API answered (`cost`) or refused (`problem`). A field it refused keeps the last cost in view
 * (shown as the last valid input's): a shop owner mid-typing sees what the video costs rather than nothing. Any other
 * refusal (a premium template, an unknown product), or a form of another template (`templateId`, the one asked
 * about), drops it: that cost is no longer what the form would pay.
 */
export function estimateAnswered(previous: EstimateState, cost: Cost | null, problem: ApiProblem | null, templateId: string | null = null): EstimateState {
  if (cost) return { loading: false, credits: cost.credits, available: cost.available, sufficient: cost.sufficient, problem: null, last: null, templateId };
  const keep = Boolean(problem?.details?.length) && previous.templateId === templateId;
  return { ...NO_ESTIMATE, problem, last: keep ? (previous.credits ?? previous.last) : null, templateId };
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
