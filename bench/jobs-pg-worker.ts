// One worker process of `npm run bench:jobs -- --postgres --instances N` (started by bench/jobs.ts, not by hand).
//
//   engine  the real JobEngine on the PostgreSQL job store (batched claims, rounds, NOTIFY wake-ups, maintenance under
//           the advisory lock), with a bench-only no-op kind registered here, as `vitrin worker` registers real kinds
//   bare    a bare FOR UPDATE SKIP LOCKED loop on the same jobs table: each transaction marks the previous batch
//           succeeded and claims the next, nothing else (no fencing, no leases renewed, no key limits)
//
// Protocol on stdio: prints `ready`, starts on a `go` line, prints `{"done": n}` (handler runs / jobs claimed) and exits
// on a `stop` line (engine) or when the table has nothing left to claim (bare).
import { SQL } from "bun";
import { createLogger } from "../src/kernel";
import { openDatabase } from "../src/db";
import { systemClock } from "../src/kernel";
import { JobEngine, PostgresJobStore, type JobStore } from "../src/jobs";

const [mode, url, owner, claimArg] = process.argv.slice(2);
if (!url || !owner || (mode !== "engine" && mode !== "bare")) {
  console.error("usage: bun bench/jobs-pg-worker.ts engine|bare <postgres url> <owner> <claim batch>");
  process.exit(2);
}
const CLAIM = Number(claimArg ?? 512);
export const KIND = "noop";

const lines = (async function* () {
  let buf = "";
  for await (const chunk of Bun.stdin.stream()) {
    buf += new TextDecoder().decode(chunk);
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
    }
  }
})();
async function waitFor(word: string) {
  // next() rather than for-await: leaving a for-await loop would close the generator for the next wait.
  for (;;) {
    const { value, done } = await lines.next();
    if (done) throw new Error(`stdin closed before "${word}"`);
    if (value === word) return;
  }
}

if (mode === "engine") {
  const db = openDatabase(url);
  let done = 0;
  // JOBS_BENCH_PROFILE=1: time spent in each store call (the statements' round trips) and in the transactions around them.
  const profile = process.env.JOBS_BENCH_PROFILE === "1" ? new Map<string, { calls: number; ms: number; rows: number }>() : null;
  const note = (name: string, t0: number, rows: number) => {
    const p = profile!.get(name) ?? { calls: 0, ms: 0, rows: 0 };
    p.calls++;
    p.ms += performance.now() - t0;
    p.rows += rows;
    profile!.set(name, p);
  };
  let store: JobStore | undefined;
  if (profile) {
    const real = new PostgresJobStore();
    const timed = <K extends "claim" | "settle" | "renew" | "rescueExpired" | "prune">(name: K) =>
      (async (...args: unknown[]) => {
        const t0 = performance.now();
        const out = await (real[name] as (...a: unknown[]) => Promise<unknown>).apply(real, args);
        note(name, t0, Array.isArray(out) ? out.length : Number(out));
        return out;
      }) as JobStore[K];
    store = Object.assign(Object.create(real) as JobStore, {
      claim: timed("claim"),
      settle: timed("settle"),
      renew: timed("renew"),
      rescueExpired: timed("rescueExpired"),
      prune: timed("prune"),
    });
    const tx = db.tx.bind(db);
    db.tx = (async (fn: Parameters<typeof tx>[0], o?: Parameters<typeof tx>[1]) => {
      const t0 = performance.now();
      let inner = 0;
      const out = await tx(async (t) => {
        const t1 = performance.now();
        const r = await fn(t);
        inner = performance.now() - t1;
        return r;
      }, o);
      note("tx (whole)", t0, 0);
      note("tx (inside fn)", performance.now() - inner, 0);
      return out;
    }) as typeof db.tx;
  }
  const engine = new JobEngine({ db, clock: systemClock, logger: createLogger("silent"), batchSize: CLAIM, owner, store });
  engine.register(KIND, () => void done++, { concurrency: CLAIM, timeoutMs: 0 });
  // One round trip before the clock starts, so connecting is not part of the measurement.
  await db.ping();
  console.log("ready");
  await waitFor("go");
  engine.start();
  await waitFor("stop");
  await engine.stop({ deadlineMs: 1_000 });
  db.close();
  if (profile) {
    for (const [name, p] of profile) {
      console.error(`${owner} ${name.padEnd(16)} ${String(p.calls).padStart(6)} calls ${p.ms.toFixed(0).padStart(7)} ms  ${(p.ms / p.calls).toFixed(2).padStart(7)} ms/call  ${(p.rows / p.calls).toFixed(1).padStart(7)} rows/call`);
    }
  }
  console.log(JSON.stringify({ done }));
} else {
  const sql = new SQL({ url, max: 1, prepare: true });
  await sql`SELECT 1`;
  console.log("ready");
  await waitFor("go");
  const SUCCEED = `UPDATE jobs SET status = 'succeeded', finished_at = $2::bigint, updated_at = $2::bigint, lease_owner = NULL, lease_expires_at = NULL
    WHERE id = ANY($1::text[])`;
  const CLAIM_SQL = `WITH c AS (
      SELECT id FROM jobs WHERE kind = $1 AND status IN ('queued', 'failed') AND run_at <= $2::bigint
      ORDER BY priority DESC, run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
    )
    UPDATE jobs SET status = 'running', lease_owner = $4, lease_expires_at = $2::bigint + 30000, heartbeat_at = $2::bigint,
      started_at = $2::bigint, updated_at = $2::bigint, attempts = jobs.attempts + 1
    FROM c WHERE jobs.id = c.id RETURNING jobs.id`;
  let claimed: string[] = [];
  let done = 0;
  for (;;) {
    const now = Date.now();
    const prev = claimed;
    claimed = await sql.begin(async (tx) => {
      if (prev.length) await tx.unsafe(SUCCEED, [prev, now]);
      return ((await tx.unsafe(CLAIM_SQL, [KIND, now, CLAIM, owner])) as { id: string }[]).map((r) => r.id);
    });
    done += prev.length;
    if (claimed.length === 0) break;
  }
  await sql.close();
  console.log(JSON.stringify({ done }));
}
// The stdin reader would keep the process alive.
process.exit(0);
