// Retry delays: exponential with jitter by default, or a fixed list per kind (jitter spreads retries of a failed burst).

/** Delay in ms before retrying after failed attempt number `attempt` (1-based); `random` returns [0, 1). */
export type BackoffFn = (attempt: number, random: () => number) => number;
/** A function, or a list of delays in ms where the last entry repeats for later attempts. */
export type Backoff = BackoffFn | readonly number[];

export type ExponentialBackoffOptions = {
  /** Delay after the first failure before jitter. */
  baseMs?: number;
  factor?: number;
  /** Ceiling before jitter, so late attempts of a long-lived job still retry within a sane time. */
  maxMs?: number;
  /** Fraction of the delay that is randomised away: the delay lands in [raw × (1 − jitter), raw]. */
  jitter?: number;
};

export function exponentialBackoff(opts: ExponentialBackoffOptions = {}): BackoffFn {
  const baseMs = opts.baseMs ?? 1_000;
  const factor = opts.factor ?? 2;
  const maxMs = opts.maxMs ?? 60 * 60 * 1_000;
  const jitter = Math.min(1, Math.max(0, opts.jitter ?? 0.5));
  return (attempt, random) => {
    const raw = Math.min(maxMs, baseMs * factor ** Math.max(0, attempt - 1));
    return Math.round(raw * (1 - jitter * random()));
  };
}

/** 1 s, 2 s, 4 s, … capped at 1 h, each shortened by up to half at random. */
export const defaultBackoff: BackoffFn = exponentialBackoff();

export function backoffDelay(backoff: Backoff, attempt: number, random: () => number): number {
  if (typeof backoff === "function") return Math.max(0, Math.round(backoff(attempt, random)));
  if (backoff.length === 0) return 0;
  return Math.max(0, backoff[Math.min(attempt, backoff.length) - 1] ?? 0);
}
