// Throttling failed authentication per client address: after `limit` wrong tokens within a window, the address gets
// 429 on authenticated routes until that window ends, before its token is even looked at (brute force learns
// nothing). Kept in memory per instance, with a cap on the addresses remembered (least recently failed go first).
import type { Clock } from "../kernel";

export type AuthThrottleOptions = {
  /** Failed authentications one address may make per window; 0 turns throttling off. */
  limit: number;
  windowMs?: number;
  /** Addresses remembered at most; beyond it the one that failed least recently is forgotten. */
  maxAddresses?: number;
  clock: Clock;
};

/** One address's failures in its current window, which opened at its first failure. */
type Window = { startedAt: number; failures: number };

export class AuthThrottle {
  readonly limit: number;
  readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly clock: Clock;
  // A Map iterates in insertion order; re-inserting on each failure keeps the least recently failed first.
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;
  /** No address is turned away after this time: until a window fills up again, callers need not be placed. */
  private blockedUntil = 0;

  constructor(opts: AuthThrottleOptions) {
    this.limit = opts.limit;
    this.windowMs = opts.windowMs ?? 60_000;
    this.maxAddresses = opts.maxAddresses ?? 10_000;
    this.clock = opts.clock;
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /**
   * Whether any address may be turned away now. Working out a caller's address costs about as much as the rest of
   * authenticating, so the guards ask this first and skip it while nobody has spent their failures.
   */
  get blocking(): boolean {
    return this.enabled && this.blockedUntil > this.clock.now();
  }

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    if (!this.enabled) return 0;
    const now = this.clock.now();
    const w = this.current(key, now);
    if (!w || w.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((w.startedAt + this.windowMs - now) / 1000));
  }

  /** Counts one failed authentication from `key`. */
  fail(key: string): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    this.sweep(now);
    const w = this.current(key, now) ?? { startedAt: now, failures: 0 };
    w.failures++;
    if (w.failures >= this.limit) this.blockedUntil = Math.max(this.blockedUntil, w.startedAt + this.windowMs);
    this.windows.delete(key);
    this.windows.set(key, w);
    if (this.windows.size > this.maxAddresses) this.windows.delete(this.windows.keys().next().value!);
  }

  /** How many addresses are remembered right now (for tests and the curious). */
  get size(): number {
    return this.windows.size;
  }

  private current(key: string, now: number): Window | null {
    const w = this.windows.get(key);
    if (!w) return null;
    if (now - w.startedAt >= this.windowMs) {
      this.windows.delete(key);
      return null;
    }
    return w;
  }

  /** Drops windows that have ended, once per window, so memory follows recent failures only. */
  private sweep(now: number) {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.startedAt >= this.windowMs) this.windows.delete(key);
  }
}
