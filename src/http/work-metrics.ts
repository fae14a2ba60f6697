// Metrics of the work behind the API: render and dekupe durations by outcome, webhook attempts by outcome and jobs
// that went dead by kind, counted where the work ends (the gauges in metrics.ts read the tables instead).
import { Counter, Histogram, type Registry } from "prom-client";

export function workMetrics(registry: Registry) {
  const renders = new Histogram({
    name: "vitrin_render_duration_seconds",
    help: "Video render attempts by template and outcome (completed, failed), from start to stored result.",
    labelNames: ["template", "outcome"] as const,
    buckets: [0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const dekupes = new Histogram({
    name: "vitrin_dekupe_duration_seconds",
    help: "Background-removal attempts by outcome (ready, failed), from the job's start to the stored cut-out.",
    labelNames: ["outcome"] as const,
    buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registers: [registry],
  });
  const attempts = new Counter({
    name: "vitrin_webhook_attempts_total",
    help: "Webhook delivery attempts by outcome: delivered, retrying (will be tried again), failed (given up).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const dead = new Counter({
    name: "vitrin_jobs_dead_total",
    help: "Jobs that used up their attempts (or died with their instance on the last one), by kind, since start.",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  // Delivery counts every attempt on its hot path: the three children are looked up once.
  const byOutcome = {
    delivered: attempts.labels({ outcome: "delivered" }),
    retrying: attempts.labels({ outcome: "retrying" }),
    failed: attempts.labels({ outcome: "failed" }),
  };
  return {
    observeRender(template: string, outcome: "completed" | "failed", seconds: number) {
      renders.observe({ template, outcome }, seconds);
    },
    observeDekupe(outcome: "ready" | "failed", seconds: number) {
      dekupes.observe({ outcome }, seconds);
    },
    observeWebhookAttempt(outcome: "delivered" | "retrying" | "failed") {
      byOutcome[outcome].inc();
    },
    observeJobDeath(kind: string) {
      dead.inc({ kind });
    },
  };
}
