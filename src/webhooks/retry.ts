// The retry schedule of a webhook message: when its next attempt falls due, and what a receiver's Retry-After asks.

/** Delay before attempt 2, 3, …: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h (≈ 3.3 days in all). */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 864e5, 864e5];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** A receiver may push the next attempt back with Retry-After, but by no more than this. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** The delay before the next attempt after `attempt` failed, with ±20% jitter. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = RETRY_SCHEDULE_MS[Math.min(attempt - 1, RETRY_SCHEDULE_MS.length - 1)];
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
