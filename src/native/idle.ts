// Gives memory back once work goes idle: after the last tracked piece of work (a cut-out, a render) has finished and
// none has started for `idleMs`, runs the reclaim once. Work keeps it from running; it never runs on a request's path.
import type { Logger, SetTimer } from "../kernel";
import { giveBackMemory } from "./memory";

export type IdleReclaimOptions = {
  /** How long the instance must stay without work before the reclaim runs; 0 turns it off. */
  idleMs: number;
  /** What to run (default: giveBackMemory). */
  reclaim?: () => unknown;
  /** setTimeout's shape; tests fire the timer themselves. */
  setTimer?: SetTimer;
  logger?: Pick<Logger, "debug" | "warn">;
};

export type IdleReclaim = {
  /** Runs `work` as tracked work: no reclaim while it runs, and the idle wait starts again when it ends. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** `target` with its method `name` tracked; every other property is the target's own. */
  wrap<T extends object>(target: T, name: keyof T & string): T;
  /** Pieces of work running now. */
  busy(): number;
  /** Whether a reclaim is due (the idle wait is running). */
  pending(): boolean;
  /** Cancels a reclaim that is due; later work no longer schedules one. */
  close(): void;
};

const systemTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  // The wait alone must not keep the process (or a test run) alive.
  t.unref?.();
  return () => clearTimeout(t);
};

export function createIdleReclaim(options: IdleReclaimOptions): IdleReclaim {
  const { idleMs, reclaim = giveBackMemory, setTimer = systemTimer, logger } = options;
  let running = 0;
  let cancel: (() => void) | null = null;
  let closed = false;

  function disarm() {
    cancel?.();
    cancel = null;
  }

  function fire() {
    cancel = null;
    if (running > 0 || closed) return;
    const started = performance.now();
    try {
      reclaim();
      logger?.debug("memory given back after idle", { idle_ms: idleMs, ms: Math.round(performance.now() - started) });
    } catch (err) {
      logger?.warn("giving memory back failed", { err });
    }
  }

  function arm() {
    disarm();
    if (closed || idleMs <= 0 || running > 0) return;
    cancel = setTimer(fire, idleMs);
  }

  async function track<T>(work: () => Promise<T>): Promise<T> {
    running++;
    disarm();
    try {
      return await work();
    } finally {
      running--;
      arm();
    }
  }

  return {
    track,
    wrap(target, name) {
      return new Proxy(target, {
        get(t, prop) {
          const value = Reflect.get(t, prop, t);
          if (typeof value !== "function") return value;
          // Bound to the target, so a class's private fields still resolve.
          if (prop === name) return (...args: unknown[]) => track(() => Promise.resolve(value.apply(t, args)));
          return value.bind(t);
        },
      });
    },
    busy: () => running,
    pending: () => cancel !== null,
    close() {
      closed = true;
      disarm();
    },
  };
}
