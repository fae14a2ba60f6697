// When the engine's rounds cannot write (a full disk, a database locked or gone), the next round waits: 100 ms, doubling
// up to 30 s, on the engine's clock. Without it a failed round was retried at once, hundreds of times a second, each
// logging a line (itself filling the disk further). The failure is logged once, then once a minute while it lasts,
// and its end once.
import type { Logger } from "../kernel";
import type { Clock } from "../kernel";

export const ROUND_BACKOFF_FIRST_MS = 100;
export const ROUND_BACKOFF_MAX_MS = 30_000;
/** While rounds keep failing, one line this often says so (with how many failed since the last). */
export const ROUND_FAILURE_LOG_EVERY_MS = 60_000;

export class RoundBackoff {
  /** Rounds failed in a row; 0 when the last one went through. */
  failures = 0;
  /** Clock time before which no round should be tried (-Infinity while rounds go through). */
  retryAt = Number.NEGATIVE_INFINITY;
  private loggedAt = Number.NEGATIVE_INFINITY;
  private unlogged = 0;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** How long until the next round may be tried; 0 when it may be now. */
  waitMs(now = this.clock.now()): number {
    return Math.max(0, this.retryAt - now);
  }

  failed(err: unknown): void {
    const now = this.clock.now();
    this.failures++;
    const delayMs = Math.min(ROUND_BACKOFF_FIRST_MS * 2 ** Math.min(this.failures - 1, 30), ROUND_BACKOFF_MAX_MS);
    this.retryAt = now + delayMs;
    if (this.failures > 1 && now - this.loggedAt < ROUND_FAILURE_LOG_EVERY_MS) {
      this.unlogged++;
      return;
    }
    const first = this.failures === 1;
    this.logger.error(first ? "job round failed; retrying with back-off" : "job rounds still failing", {
      err,
      failures: this.failures,
      not_logged_since: this.unlogged,
      retry_in_ms: delayMs,
    });
    this.loggedAt = now;
    this.unlogged = 0;
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.info("job rounds recovered", { failures: this.failures });
    this.failures = 0;
    this.retryAt = Number.NEGATIVE_INFINITY;
    this.loggedAt = Number.NEGATIVE_INFINITY;
    this.unlogged = 0;
  }
}
