// Support for the job engine's tests: a fresh SQLite file per test with its engines and handles (closed by
// runCleanups), a gate to hold a handler mid-job, and small helpers to enqueue and to read what handlers wrote.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, memoryLogger } from "../../src/kernel";
import { openDatabase, schema, type Db, type Orm } from "../../src/db";
import { JobEngine, type JobEngineOptions } from "../../src/jobs";

export const SECOND = 1000;
export const DAY = 24 * 60 * 60 * SECOND;

export type Env = {
  dir: string;
  path: string;
  db: Db;
  clock: ManualClock;
  logs: ReturnType<typeof memoryLogger>["records"];
  /** Another engine on its own connection to the same file, as a second process would have. */
  engine(opts?: Partial<JobEngineOptions>): JobEngine;
  openHandle(): Promise<Db>;
};

const cleanups: (() => Promise<void> | void)[] = [];
/** Something to close after the current test (a child process, say). */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** Closes what the last test opened, newest first: each test file runs it after each test. */
export async function runCleanups(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!();
}

export async function setup(clock = new ManualClock()): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-jobs-"));
  const path = join(dir, "vitrin.db");
  const db = openDatabase(`sqlite:${path}`);
  await db.migrate();
  const logger = memoryLogger("debug");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  const env: Env = {
    dir,
    path,
    db,
    clock,
    logs: logger.records,
    engine(opts = {}) {
      const engine = new JobEngine({ db, clock, logger, random: () => 0, ...opts });
      cleanups.push(async () => {
        await engine.stop({ deadlineMs: 0 });
      });
      return engine;
    },
    async openHandle() {
      const other = openDatabase(`sqlite:${path}`);
      cleanups.push(() => other.close());
      return other;
    },
  };
  return env;
}

/** A promise the test opens by hand, to hold a handler mid-job. */
export function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export async function enqueue(engine: JobEngine, db: Db, kind: string, payload: unknown = {}, opts = {}) {
  return db.tx((tx) => engine.enqueue(tx, kind, payload, opts));
}

/** A row a handler's deferred write leaves behind (an account, as the simplest table to write to). */
export function note(tx: Orm, id: string) {
  return tx.insert(schema.accounts).values({ id, createdAt: 0, updatedAt: 0 });
}

export async function notes(db: Db): Promise<string[]> {
  return (await db.read.select({ id: schema.accounts.id }).from(schema.accounts)).map((r) => r.id).sort();
}

/** Lets the event loop run a few turns: long enough for a scheduler loop to act on what it has already been told. */
export async function turns(n = 5) {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
