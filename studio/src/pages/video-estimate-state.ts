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
};

/** What the API answers an estimate with. */
export type Cost = { credits: number; available: number; sufficient: boolean };

export const NO_ESTIMATE: EstimateState = { loading: false, credits: null, available: null, sufficient: true, problem: null, last: null };

/**
 * The state after the API answered (`cost`) or refused (`problem`). A field it refused keeps the last cost in view
 * (shown as the last valid input's): a shop owner mid-typing sees what the video costs rather than nothing. Any other
 * refusal (a premium template, an unknown product) drops it: that cost is no longer what the form would pay.
 */
export function estimateAnswered(previous: EstimateState, cost: Cost | null, problem: ApiProblem | null): EstimateState {
  if (cost) return { loading: false, credits: cost.credits, available: cost.available, sufficient: cost.sufficient, problem: null, last: null };
  const fieldProblem = Boolean(problem?.details?.length);
  return { ...NO_ESTIMATE, problem, last: fieldProblem ? (previous.credits ?? previous.last) : null };
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
