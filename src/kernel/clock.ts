// The one source of "now" (epoch ms); tests hand in a manual clock to drive schedulers without sleeping.
export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Runs `fn` after `ms` unless the returned function is called first (setTimeout's shape; tests fire it themselves). */
export type SetTimer = (fn: () => void, ms: number) => () => void;
