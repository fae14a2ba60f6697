// The single SQLite writer: transactions queue for the one write connection and run in groups, one commit (and one
// flush of the WAL) per group.
import type { Database } from "bun:sqlite";
import { beginImmediate } from "./sqlite-lock";
import type { Orm } from "./types";
import { LAZY_FLUSH_MS, type WalSync } from "./wal-sync";

type Work = {
  /** Runs inside the group's transaction, under its own savepoint. */
  fn?: (tx: Orm) => unknown;
  /** Resolve only once the commit is on disk (TxOptions.durable). */
  durable?: boolean;
  /** Runs alone, outside any transaction (migrations manage their own). */
  exclusive?: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
};

/**
 * The single SQLite writer, with group commit: transactions that queue up while one group runs are run together in
 * the next BEGIN IMMEDIATE … COMMIT, each under its own savepoint (a lone one runs without), so one fsync covers them
 * all. A callback that throws rolls back only its own writes. Callers see ordinary one-transaction semantics;
 * callbacks must not nest `tx`.
 */
export class GroupWriter {
  private queue: Work[] = [];
  private running = false;
  /** Hooks of the callback now running; afterCommit() adds to it. */
  current: (() => void)[] | null = null;

  constructor(
    private readonly client: Database,
    private readonly orm: Orm,
    private readonly onCommit: () => void,
    private readonly wal: WalSync,
    /** How long a group waits for another process's write lock before its work fails with SQLITE_BUSY. */
    private readonly lockWaitMs: number,
    private readonly maxGroup = 512,
  ) {}

  submit<T>(work: Omit<Work, "resolve" | "reject">): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        if (this.queue[0].exclusive) {
          const work = this.queue.shift()!;
          try {
            const value = await work.exclusive!();
            await this.wal.flushed();
            work.resolve(value);
          } catch (e) {
            work.reject(e);
          }
          continue;
        }
        let n = 0;
        while (n < this.queue.length && n < this.maxGroup && !this.queue[n].exclusive) n++;
        await this.runGroup(this.queue.splice(0, n));
      }
    } finally {
      this.running = false;
    }
  }

  private async runGroup(group: Work[]) {
    const { client } = this;
    try {
      await beginImmediate(client, this.lockWaitMs);
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    const outcomes: ({ ok: true; value: unknown; hooks: (() => void)[] } | { ok: false; error: unknown })[] = [];
    // A group of one needs no savepoint (its failure rolls the whole transaction back), and a savepoint is not free: it
    // copies every page it first touches into the statement journal.
    const alone = group.length === 1;
    for (const work of group) {
      const hooks: (() => void)[] = [];
      this.current = hooks;
      if (!alone) client.exec("SAVEPOINT work");
      try {
        const value = await work.fn!(this.orm);
        if (!alone) client.exec("RELEASE work");
        outcomes.push({ ok: true, value, hooks });
      } catch (error) {
        this.current = null;
        if (!client.inTransaction) {
          // SQLite rolled the whole transaction back (I/O error, disk full): nothing in this group was kept.
          for (const w of group) w.reject(error);
          return;
        }
        if (alone) {
          client.exec("ROLLBACK");
          work.reject(error);
          return;
        }
        client.exec("ROLLBACK TO work");
        client.exec("RELEASE work");
        outcomes.push({ ok: false, error });
      }
      this.current = null;
    }
    try {
      client.exec("COMMIT");
    } catch (e) {
      if (client.inTransaction) client.exec("ROLLBACK");
      for (const w of group) w.reject(e);
      return;
    }
    this.onCommit();
    const durable: { work: Work; value: unknown; hooks: (() => void)[] }[] = [];
    group.forEach((work, i) => {
      const outcome = outcomes[i];
      if (!outcome.ok) work.reject(outcome.error);
      else if (work.durable === false) {
        for (const h of outcome.hooks) h();
        work.resolve(outcome.value);
      } else durable.push({ work, value: outcome.value, hooks: outcome.hooks });
    });
    // Commits nobody waits for are flushed too, within LAZY_FLUSH_MS, not at some later commit; a group of only those
    // does not start a sync of its own, or a stream of them would keep a pool thread syncing without pause.
    if (durable.length === 0) {
      this.wal.soon(LAZY_FLUSH_MS);
      return;
    }
    this.wal.after((error) => {
      for (const { work, value, hooks } of durable) {
        if (error) {
          work.reject(new Error(`the transaction committed, but writing it to disk failed: ${error.message}`, { cause: error }));
          continue;
        }
        for (const h of hooks) h();
        work.resolve(value);
      }
    });
  }
}
