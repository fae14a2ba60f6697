// Per-token rate limiting (GCRA: a token bucket kept as one timestamp per key) with RateLimit-* headers. On SQLite
// (one host) the timestamps live in memory; on PostgreSQL in the rate_limits table, so every instance behind a load
// balancer draws on the same budget. createRateLimiter picks one; the guard sees only RateLimiter.
import type { Db } from "../db";
import type { Clock } from "../kernel";
import { pgClientOf } from "../db";

export type RateDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number; retryAfterSeconds: number };

export interface RateLimiter {
  readonly enabled: boolean;
  check(key: string): RateDecision | Promise<RateDecision>;
  headers(d: RateDecision): Record<string, string>;
}

/** `perMinute` sustained requests, `burst` of them allowed at once. perMinute 0 disables limiting. */
export function createRateLimiter(db: Db, perMinute: number, burst: number, clock: Clock): RateLimiter {
  return db.dialect === "postgres" ? new DatabaseRateLimiter(db, perMinute, burst, clock) : new MemoryRateLimiter(perMinute, burst, clock);
}

/** GCRA's arithmetic, shared by both stores: `tat` is the key's theoretical arrival time before this request. */
abstract class Gcra {
  protected readonly interval: number;
  protected readonly tolerance: number;

  constructor(
    private readonly perMinute: number,
    protected readonly burst: number,
    protected readonly clock: Clock,
  ) {
    this.interval = perMinute > 0 ? 60_000 / perMinute : 0;
    this.tolerance = this.interval * Math.max(burst - 1, 0);
  }

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  protected denied(now: number, tat: number): RateDecision {
    const wait = tat - this.tolerance - now;
    return {
      allowed: false,
      limit: this.burst,
      remaining: 0,
      resetSeconds: Math.ceil((tat - now) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
    };
  }

  /** `next` is the key's arrival time after this request was counted. */
  protected allowed(now: number, next: number): RateDecision {
    const remaining = Math.max(0, Math.floor((this.tolerance - (next - now)) / this.interval) + 1);
    return {
      allowed: true,
      limit: this.burst,
      remaining: Math.min(remaining, this.burst),
      resetSeconds: Math.ceil((next - now) / 1000),
      retryAfterSeconds: 0,
    };
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

export class MemoryRateLimiter extends Gcra implements RateLimiter {
  private readonly tat = new Map<string, number>();
  private lastSweep = 0;

  check(key: string): RateDecision {
    const now = this.clock.now();
    this.sweep(now);
    const tat = Math.max(this.tat.get(key) ?? now, now);
    if (now < tat - this.tolerance) return this.denied(now, tat);
    const next = tat + this.interval;
    this.tat.set(key, next);
    return this.allowed(now, next);
  }

  /** Forget keys whose bucket has refilled, so memory follows active tokens only. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, tat] of this.tat) if (tat <= now) this.tat.delete(key);
  }
}

// GCRA as one atomic upsert: the conflicting row is locked and its latest version read, so concurrent requests from
// any instance are counted one after another. A denied request leaves the row alone (the WHERE fails) and reads the
// arrival time from `prev`, whose snapshot predates the upsert. $1 key, $2 now, $3 interval, $4 tolerance.
const TAKE = `WITH prev AS (SELECT tat FROM rate_limits WHERE key = $1),
  up AS (
    INSERT INTO rate_limits AS r (key, tat) VALUES ($1, $2::float8 + $3::float8)
    ON CONFLICT (key) DO UPDATE SET tat = greatest(r.tat, $2::float8) + $3::float8
    WHERE greatest(r.tat, $2::float8) - $4::float8 <= $2::float8
    RETURNING tat)
  SELECT (SELECT tat FROM up) AS next, (SELECT tat FROM prev) AS prev`;
const SWEEP = `DELETE FROM rate_limits WHERE tat <= $1::float8`;

export class DatabaseRateLimiter extends Gcra implements RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    perMinute: number,
    burst: number,
    clock: Clock,
  ) {
    super(perMinute, burst, clock);
  }

  async check(key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const client = pgClientOf(this.db.read);
    if (now - this.lastSweep >= 60_000) {
      this.lastSweep = now;
      // Refilled buckets hold nothing worth keeping; any instance may clear them.
      void client.unsafe(SWEEP, [now]).catch(() => undefined);
    }
    const [row] = (await client.unsafe(TAKE, [key, now, this.interval, this.tolerance])) as { next: number | null; prev: number | null }[];
    if (row.next !== null) return this.allowed(now, Number(row.next));
    return this.denied(now, Math.max(Number(row.prev ?? now), now));
  }
}
