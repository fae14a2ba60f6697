// Prometheus metrics for one service instance (its own registry, so several instances in one test process stay apart).
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "vitrin_" });
  const requests = new Counter({
    name: "vitrin_http_requests_total",
    help: "HTTP requests by method, route and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "vitrin_http_request_duration_seconds",
    help: "HTTP request latency by method and route.",
    labelNames: ["method", "route"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Label sets are few (routes × statuses), so their children are looked up once and kept.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(v: number): void }>();
  return {
    registry,
    observeRequest(method: string, route: string, status: number, seconds: number) {
      const key = `${method} ${route}`;
      const ckey = `${key} ${status}`;
      let counter = counters.get(ckey);
      if (!counter) counters.set(ckey, (counter = requests.labels({ method, route, status: String(status) })));
      counter.inc();
      let timer = timers.get(key);
      if (!timer) timers.set(key, (timer = latency.labels({ method, route })));
      timer.observe(seconds);
    },
    async text(): Promise<string> {
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
