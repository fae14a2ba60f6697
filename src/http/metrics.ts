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
  return {
    registry,
    observeRequest(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    async text(): Promise<string> {
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
