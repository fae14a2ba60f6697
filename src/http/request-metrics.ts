// The per-request metrics (vitrin_http_requests_total and vitrin_http_request_duration_seconds), tallied in plain
// numbers on the hot path and handed to prom-client's registry as ready values when it is scraped. prom-client's own
// Counter and Histogram check and hash the labels on every observation (~0.9 µs a request, measured); a route's
// tally is found once and then only counted into, and the text format stays prom-client's.
import type { Metric, Registry } from "prom-client";

export const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method and route: its requests by status, and its latencies in buckets (not cumulative: summed on scrape). */
type RouteTally = {
  labels: { method: string; route: string };
  statuses: Map<number, number>;
  buckets: Float64Array;
  sum: number;
  count: number;
};

type Value = { labels: Record<string, string | number>; value: number; metricName?: string; sharedLabels?: Record<string, string> };

export class RequestMetrics {
  private readonly routes = new Map<string, RouteTally>();
  /** The same tallies by route, then method: found without building a key string on every request. */
  private readonly byRoute = new Map<string, Map<string, RouteTally>>();

  constructor(registry: Registry) {
    // The registry reads a metric through name, help, type, aggregator and get(), which is all these two provide.
    registry.registerMetric(this.counter() as unknown as Metric);
    registry.registerMetric(this.histogram() as unknown as Metric);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let methods = this.byRoute.get(route);
    if (!methods) this.byRoute.set(route, (methods = new Map()));
    let tally = methods.get(method);
    if (!tally) {
      tally = { labels: { method, route }, statuses: new Map(), buckets: new Float64Array(REQUEST_BUCKETS.length), sum: 0, count: 0 };
      methods.set(method, tally);
      this.routes.set(`${method} ${route}`, tally);
    }
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    tally.sum += seconds;
    tally.count++;
    for (let i = 0; i < REQUEST_BUCKETS.length; i++) {
      if (seconds <= REQUEST_BUCKETS[i]) {
        tally.buckets[i]++;
        break;
      }
    }
  }

  private counter() {
    const name = "vitrin_http_requests_total";
    return {
      name,
      help: "HTTP requests by method, route and status.",
      type: "counter",
      aggregator: "sum",
      get: async () => {
        const values: Value[] = [];
        for (const t of this.routes.values()) {
          for (const [status, n] of t.statuses) values.push({ labels: { ...t.labels, status: String(status) }, value: n });
        }
        return { name, help: "HTTP requests by method, route and status.", type: "counter", aggregator: "sum", values };
      },
    };
  }

  private histogram() {
    const name = "vitrin_http_request_duration_seconds";
    const help = "HTTP request latency by method and route.";
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => {
        const values: Value[] = [];
        for (const t of this.routes.values()) {
          // Laid out as prom-client lays out its own histograms: cumulative buckets, +Inf, sum, count.
          let cumulative = 0;
          REQUEST_BUCKETS.forEach((le, i) => {
            cumulative += t.buckets[i];
            values.push({ labels: { le }, value: cumulative, metricName: `${name}_bucket`, sharedLabels: t.labels });
          });
          values.push({ labels: { le: "+Inf" }, value: t.count, metricName: `${name}_bucket`, sharedLabels: t.labels });
          values.push({ labels: {}, value: t.sum, metricName: `${name}_sum`, sharedLabels: t.labels });
          values.push({ labels: {}, value: t.count, metricName: `${name}_count`, sharedLabels: t.labels });
        }
        return { name, help, type: "histogram", aggregator: "sum", values };
      },
    };
  }
}
