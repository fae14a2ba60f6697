// bench:webhooks — signed deliveries through the real path (message rows, delivery jobs, vetting, signing, attempt
// log) to a loopback receiver in another process, beside raw fetch POSTs of the same bodies in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNotNull } from "drizzle-orm";
import { loadConfig } from "../src/config";
import { createLogger } from "../src/kernel";
import { createService } from "../src/service";

const N = Number(process.env.WEBHOOKS_BENCH_N ?? 20_000);
// Pairs of (raw, vitrin) runs; with more than one the median ratio is reported, which shared machines need.
const ROUNDS = Math.max(1, Number(process.env.WEBHOOKS_BENCH_ROUNDS ?? 1));
const CONCURRENCY = 32;
const ACCOUNTS = 4; // a receiver-side fairness limit allows 8 deliveries in flight per account

const receiver = Bun.spawn([process.execPath, "run", join(import.meta.dir, "receiver.ts")], { stdout: "pipe", stderr: "inherit" });
const reader = receiver.stdout.getReader();
const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
const url = `http://127.0.0.1:${port}/hook`;
const received = async () => Number(await (await fetch(url)).text());

const body = JSON.stringify({ id: "msg_x", event: "video.completed", created_at: new Date().toISOString(), data: { id: "vid_x", status: "completed", video_url: "http://cdn/x.mp4" } });

/** CPU time of this process (every thread: JS, fetch's I/O, SQLite) per delivery, µs: steadier than wall time under load. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

async function rawFetch() {
  const before = await received();
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) {
        const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
        await res.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpuUs = cpuSince(cpu0);
  return { seconds, cpuUs, got: (await received()) - before };
}

async function vitrin(n = N) {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-bench-webhooks-"));
  // No background-removal model: installing it writes ~180 MB, whose write-back would share the disk with the run.
  const config = loadConfig({
    VITRIN_DATA_DIR: dir,
    VITRIN_ALLOW_PRIVATE_NETWORKS: "true",
    VITRIN_LOG_LEVEL: "silent",
    VITRIN_POLL_MS: "50",
    VITRIN_BACKGROUND_REMOVAL: "none",
  });
  const service = await createService(config, { logger: createLogger("silent") });
  try {
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push((await service.accounts.create({ name: `bench ${i}` })).account.id);
    for (const a of accounts) await service.webhooks.secret(a);
    const before = await received();
    // Enqueue everything first (in transactions of 500), then time the delivery alone.
    for (let i = 0; i < n; i += 500) {
      await service.db.tx(async (tx) => {
        for (let j = i; j < Math.min(n, i + 500); j++) {
          await service.webhooks.emit(tx, { accountId: accounts[j % ACCOUNTS], event: "video.completed", url, data: { id: `vid_${j}`, status: "completed" } });
        }
      });
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    service.jobs.start();
    // Watch the receiver's count (a cheap GET) until everything has arrived, and only then the messages until every
    // outcome is recorded: counting them every few ms would load the database as no deployment does.
    while ((await received()) - before < n) await Bun.sleep(5);
    const { webhookMessages } = service.db.schema;
    while ((await service.db.read.$count(webhookMessages, isNotNull(webhookMessages.nextAttemptAt))) > 0) await Bun.sleep(5);
    const seconds = (performance.now() - t0) / 1000;
    const cpuUs = cpuSince(cpu0);
    return { seconds, cpuUs, got: (await received()) - before };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = (await Bun.file("/proc/loadavg").text().catch(() => "")).split(" ").slice(0, 3).join(" ");
// Warm-ups, the same work on each side: the receiver and the connection pool with raw fetch, and vitrin's code, which
// the JIT keeps optimising for the first tens of thousands of deliveries (a tenth of a run left the first pair ~25 %
// slower than the later ones).
await rawFetch();
await vitrin();
const pairs: { raw: Awaited<ReturnType<typeof rawFetch>>; ours: Awaited<ReturnType<typeof vitrin>> }[] = [];
for (let i = 0; i < ROUNDS; i++) pairs.push({ raw: await rawFetch(), ours: await vitrin() });
receiver.kill();
const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`\nbench:webhooks — ${fmt(N)} deliveries to a loopback receiver, ${CONCURRENCY} in flight; load average ${load || "n/a"}`);
console.log("| path | deliveries/s | seconds | CPU µs/delivery | received |");
console.log("|---|---|---|---|---|");
for (const { raw, ours } of pairs) {
  console.log(`| raw fetch POST | ${fmt(N / raw.seconds)} | ${raw.seconds.toFixed(2)} | ${raw.cpuUs.toFixed(0)} | ${fmt(raw.got)} |`);
  console.log(`| vitrin (job → vet → sign → POST → attempt log) | ${fmt(N / ours.seconds)} | ${ours.seconds.toFixed(2)} | ${ours.cpuUs.toFixed(0)} | ${fmt(ours.got)} |`);
}
const ratios = pairs.map((p) => p.raw.seconds / p.ours.seconds);
const rate = median(pairs.map((p) => N / p.ours.seconds));
const label = pairs.length > 1 ? ` (median of ${pairs.length} pairs: ${ratios.map((r) => r.toFixed(2)).join(", ")})` : "";
console.log(`vitrin: ${fmt(rate)} deliveries/s; ratio vitrin / raw fetch: ${median(ratios).toFixed(2)}${label} (targets: ≥ 10,000 deliveries/s, ratio ≥ 0.50)`);
