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
import { createLogger } from "../src/config/log";
import { openDatabase } from "../src/db";
import { systemClock } from "../src/db/clock";
import { JobEngine } from "../src/jobs";

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
  const engine = new JobEngine({ db, clock: systemClock, logger: createLogger("silent"), batchSize: CLAIM, owner });
  engine.register(KIND, () => void done++, { concurrency: CLAIM, timeoutMs: 0 });
  // One round trip before the clock starts, so connecting is not part of the measurement.
  await db.ping();
  console.log("ready");
  await waitFor("go");
  engine.start();
  await waitFor("stop");
  await engine.stop({ deadlineMs: 1_000 });
  db.close();
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
