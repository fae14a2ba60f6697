// Per-token rate limiting (GCRA: a token bucket kept as one timestamp per key) with RateLimit-* headers.
import type { Clock } from "../db/clock";

export type RateDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number; retryAfterSeconds: number };

export class RateLimiter {
  private readonly interval: number;
  private readonly tolerance: number;
  private readonly tat = new Map<string, number>();
  private lastSweep = 0;

  /** `perMinute` sustained requests, `burst` of them allowed at once. perMinute 0 disables limiting. */
  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.interval = perMinute > 0 ? 60_000 / perMinute : 0;
    this.tolerance = this.interval * Math.max(burst - 1, 0);
  }

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  check(key: string): RateDecision {
    const now = this.clock.now();
    this.sweep(now);
    const tat = Math.max(this.tat.get(key) ?? now, now);
    const allowAt = tat - this.tolerance;
    if (now < allowAt) {
      const wait = allowAt - now;
      return {
        allowed: false,
        limit: this.burst,
        remaining: 0,
        resetSeconds: Math.ceil((tat - now) / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
      };
    }
    const next = tat + this.interval;
    this.tat.set(key, next);
    const remaining = Math.max(0, Math.floor((this.tolerance - (next - now)) / this.interval) + 1);
    return {
      allowed: true,
      limit: this.burst,
      remaining: Math.min(remaining, this.burst),
      resetSeconds: Math.ceil((next - now) / 1000),
      retryAfterSeconds: 0,
    };
  }

  /** Forget keys whose bucket has refilled, so memory follows active tokens only. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, tat] of this.tat) if (tat <= now) this.tat.delete(key);
  }

  headers(d: RateDecision): Record<string, string> {
    return {
      "ratelimit-limit": String(d.limit),
      "ratelimit-remaining": String(d.remaining),
      "ratelimit-reset": String(d.resetSeconds),
      "ratelimit-policy": `${this.burst};w=${Math.round((this.burst * this.interval) / 1000)}`,
    };
  }
}
