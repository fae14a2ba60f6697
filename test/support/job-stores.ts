// Support for the job-store tests that run on both drivers: a fresh SQLite file or PostgreSQL database per test, a
// second handle on it, engines with a manual clock, and helpers to hold, enqueue and read what handlers wrote.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, memoryLogger } from "../../src/kernel";
import { openDatabase, type Db, type Orm } from "../../src/db";
import { JobEngine, PostgresJobStore, SqliteJobStore, type JobEngineOptions, type JobStore } from "../../src/jobs";
import { createPostgresDatabase, postgresAvailable } from "../helpers";

export const SECOND = 1000;

export type Driver = "sqlite" | "postgres";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
/** Closes what the last test opened, newest first: each test file runs it after each test. */
export async function closeStores(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!();
}

export type StoreEnv = {
  db: Db;
  clock: ManualClock;
  store: JobStore;
  /** Another handle on the same database, as a second instance would have. */
  openHandle(): Promise<Db>;
  engine(opts?: Partial<JobEngineOptions>): JobEngine;
};

export async function setup(driver: Driver, clock = new ManualClock()): Promise<StoreEnv> {
  let url: string;
  if (driver === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "vitrin-jobstore-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    url = `sqlite:${join(dir, "v.db")}`;
  } else {
    const pg = await createPostgresDatabase();
    cleanups.push(() => pg.drop());
    url = pg.url;
  }
  const db = openDatabase(url);
  cleanups.push(() => db.close());
  await db.migrate();
  const logger = memoryLogger("debug");
  return {
    db,
    clock,
    store: driver === "sqlite" ? new SqliteJobStore() : new PostgresJobStore(),
    async openHandle() {
      const other = openDatabase(url);
      cleanups.push(() => other.close());
      return other;
    },
    engine(opts = {}) {
      const engine = new JobEngine({ db, clock, logger, random: () => 0, ...opts });
      cleanups.push(() => engine.stop({ deadlineMs: 0 }));
      return engine;
    },
  };
}

export function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export function enqueue(engine: JobEngine, db: Db, kind: string, payload: unknown = {}, opts = {}) {
  return db.tx((tx) => engine.enqueue(tx, kind, payload, opts));
}

export function note(db: Db, tx: Orm, id: string) {
  return tx.insert(db.schema.accounts).values({ id, createdAt: 0, updatedAt: 0 });
}

export async function notes(db: Db): Promise<string[]> {
  const { accounts } = db.schema;
  return (await db.read.select({ id: accounts.id }).from(accounts)).map((r) => r.id).sort();
}

/** The drivers to run on: PostgreSQL too where the suite can reach it. */
export const drivers: Driver[] = postgresAvailable ? ["sqlite", "postgres"] : ["sqlite"];
