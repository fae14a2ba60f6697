// Making SQLite commits durable off the event loop: the WAL file is flushed with fdatasync on a pool thread, and a
// burst of commits shares one flush.
import { closeSync, fdatasync, openSync } from "node:fs";
import type { SetTimer } from "../kernel";

/** Flushes a file's data to disk and calls back (fdatasync's shape). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

/**
 * Makes commits durable off the event loop: one fdatasync of the WAL file covers every commit made before it started,
 * so a burst of commits shares a sync. WAL frames are appended in commit order and recovery keeps only a whole
 * prefix of them, so a later commit can never survive a power cut that an earlier one did not.
 */
export class WalSync {
  private fd: number | null = null;
  private running = false;
  /** Cancels the flush due for commits nobody waits for (soon()), if one is. */
  private lazy: (() => void) | null = null;
  /** Callbacks of commits made since the running sync started (those need the next one). */
  private waiting: ((error: Error | null) => void)[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly walPath: string | null,
    private readonly sync: SyncFile = fdatasync,
    private readonly setTimer: SetTimer = (fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  ) {}

  /** Calls `done` once every commit made so far is on disk (at once for an in-memory database). */
  after(done: (error: Error | null) => void): void {
    if (!this.walPath) {
      queueMicrotask(() => done(null));
      return;
    }
    this.waiting.push(done);
    if (!this.running) this.start();
  }

  /** after() as a promise: resolves once every commit made so far is on disk, rejects if the flush failed. */
  flushed(): Promise<void> {
    return new Promise((resolve, reject) => this.after((error) => (error ? reject(error) : resolve())));
  }

  /**
   * Flushes what is committed now within `ms`, unless a flush that covers it starts first: for commits nobody waits
   * for, so a stream of them costs a sync every `ms` rather than one after another.
   */
  soon(ms: number): void {
    if (!this.walPath || this.lazy) return;
    this.lazy = this.setTimer(() => {
      this.lazy = null;
      this.after(() => {});
    }, ms);
  }

  /** Resolves when no sync is running, waiting or due (a due one starts now). */
  settled(): Promise<void> {
    if (this.lazy) {
      this.lazy();
      this.lazy = null;
      this.after(() => {});
    }
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  close(): void {
    this.lazy?.();
    this.lazy = null;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private start(): void {
    // This flush covers every commit made so far, those a lazy one was due for too.
    this.lazy?.();
    this.lazy = null;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    const finish = (error: Error | null) => {
      for (const done of batch) done(error);
      if (this.waiting.length > 0) return this.start();
      this.running = false;
      for (const resolve of this.idle.splice(0)) resolve();
    };
    try {
      // The WAL file stays in place while our connections are open; SQLite truncates or rewrites it, never replaces it.
      this.fd ??= openSync(this.walPath!, "r");
    } catch (e) {
      queueMicrotask(() => finish(e as Error));
      return;
    }
    this.sync(this.fd, (error) => finish(error));
  }
}

/** How long a commit made with `durable: false` may wait for the flush that puts it on disk. */
export const LAZY_FLUSH_MS = 100;
