// Prometheus metrics for one service instance (its own registry, so several instances in one test process stay apart).
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { RequestMetrics } from "./request-metrics";
import { workMetrics } from "./work-metrics";

export type JobStatsSource = () => Promise<{
  kinds: Record<string, Record<string, number | null> & { oldestQueuedAgeMs: number | null }>;
}>;

export type WebhookBacklogSource = () => Promise<{ waiting: number; oldestDueMs: number }>;

/**
 * `source`, read once for all the gauges fed by it: a scrape collects every gauge at once, so they share the read in
 * flight instead of querying the database one time each.
 */
function sharedRead<T>(source: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () =>
    (inFlight ??= source().finally(() => {
      inFlight = null;
    }));
}

export function createMetrics() {
  const registry = new Registry();
  // Registering the process metrics reads V8's heap statistics and starts event-loop monitors: done on the first
  // scrape, not during start (a self-hoster who never scrapes never pays for it).
  let defaults = false;
  // Registered first, so /metrics lists them where it always has.
  const requests = new RequestMetrics(registry);
  const authFailures = new Counter({
    name: "vitrin_auth_failures_total",
    help: "Failed authentications by guard (account, admin) and reason (missing: no bearer token; invalid: a wrong one).",
    labelNames: ["guard", "reason"] as const,
    registers: [registry],
  });
  // Every series exists from the start at 0, so a rate() over a fresh instance is defined.
  for (const guard of ["account", "admin"]) for (const reason of ["missing", "invalid"]) authFailures.inc({ guard, reason }, 0);
  return {
    registry,
    ...workMetrics(registry),
    /** Counts one failed authentication (the guards call it through their AuthGate). */
    authFailure: (guard: "account" | "admin", reason: "missing" | "invalid") => authFailures.inc({ guard, reason }),
    /** Counts one answered request and its latency in seconds (every request calls it: kept to a few additions). */
    observeRequest: (method: string, route: string, status: number, seconds: number) => requests.observe(method, route, status, seconds),
    /** Job queue depth by kind and status, and the oldest waiting job's age, read from the job table on scrape. */
    watchJobs(jobStats: JobStatsSource) {
      const source = sharedRead(jobStats);
      new Gauge({
        name: "vitrin_jobs",
        help: "Jobs in the job table by kind and status.",
        labelNames: ["kind", "status"] as const,
        registers: [registry],
        async collect() {
          const stats = await source();
          this.reset();
          for (const [kind, byStatus] of Object.entries(stats.kinds)) {
            for (const [status, n] of Object.entries(byStatus)) {
              if (status !== "oldestQueuedAgeMs" && typeof n === "number") this.set({ kind, status }, n);
            }
          }
        },
      });
      new Gauge({
        name: "vitrin_jobs_oldest_waiting_seconds",
        help: "How long the longest-waiting due job of each kind has waited.",
        labelNames: ["kind"] as const,
        registers: [registry],
        async collect() {
          const stats = await source();
          this.reset();
          for (const [kind, k] of Object.entries(stats.kinds)) if (k.oldestQueuedAgeMs !== null) this.set({ kind }, k.oldestQueuedAgeMs / 1000);
        },
      });
    },
    /** Webhook messages not yet delivered or given up on: delivery runs one job per account, so job counts hide them. */
    watchWebhooks(backlog: WebhookBacklogSource) {
      const source = sharedRead(backlog);
      new Gauge({
        name: "vitrin_webhook_messages_waiting",
        help: "Webhook messages not yet delivered or given up on (due now or waiting for a retry).",
        registers: [registry],
        async collect() {
          this.set((await source()).waiting);
        },
      });
      new Gauge({
        name: "vitrin_webhook_oldest_due_seconds",
        help: "How long the longest-overdue webhook message has been due (0 when none is).",
        registers: [registry],
        async collect() {
          this.set((await source()).oldestDueMs / 1000);
        },
      });
    },
    async text(): Promise<string> {
      if (!defaults) {
        defaults = true;
        collectDefaultMetrics({ register: registry, prefix: "vitrin_" });
      }
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
