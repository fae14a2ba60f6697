// Child process for test/jobs.test.ts: runs a real job engine on a shared SQLite file so the parent can SIGKILL it or race it.
//
//   bun test/support/jobs-child.ts block  <db-path>   run kind "block": note the start, then hang until killed
//   bun test/support/jobs-child.ts worker <db-path>   run kind "count" until SIGTERM, then print the ids it ran as JSON
import { createLogger } from "../../src/kernel";
import { openDatabase } from "../../src/db";
import { systemClock } from "../../src/kernel";
import { JobEngine } from "../../src/jobs";

const [mode, path] = process.argv.slice(2);
if (!path || (mode !== "block" && mode !== "worker")) {
  console.error("usage: jobs-child.ts block|worker <db-path>");
  process.exit(2);
}

const db = openDatabase(`sqlite:${path}`);
const engine = new JobEngine({
  db,
  clock: systemClock,
  logger: createLogger("error", (chunk) => process.stderr.write(chunk)),
  owner: `child-${mode}-${process.pid}`,
  pollMs: 20,
});

if (mode === "block") {
  engine.register(
    "block",
    async () => {
      // Parks for good: only SIGKILL ends this attempt, exactly like a worker lost to a crash or power cut.
      await new Promise<never>(() => {});
    },
    { leaseMs: 5_000, timeoutMs: 0 },
  );
} else {
  const ran: string[] = [];
  engine.register(
    "count",
    async (job) => {
      ran.push(job.id);
      // Take a moment, so one process cannot finish every job before the others get a turn at the lock.
      await Bun.sleep(2);
    },
    { concurrency: 16 },
  );
  process.on("SIGTERM", async () => {
    await engine.stop({ deadlineMs: 5_000 });
    db.close();
    process.stdout.write(JSON.stringify(ran) + "\n", () => process.exit(0));
  });
}

engine.start();
// Tell the parent this worker is polling, so a race test can enqueue only once every worker is in it.
if (mode === "worker") await Bun.write(`${path}.ready-${process.pid}`, "");
