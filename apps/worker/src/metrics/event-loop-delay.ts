import { monitorEventLoopDelay } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

/** How finely the event loop's delay is sampled (perf_hooks' resolution, ms). */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/**
 * The event loop's delay (perf_hooks.monitorEventLoopDelay) as Prometheus gauges: p50, p99 and the
 * maximum since the previous scrape, in seconds (each scrape starts a new interval, as prom-client's
 * own nodejs_eventloop_lag gauges do). How long any request, of any tenant, waited for the loop: the
 * budget a tenant's work must stay within (DESIGN.md, "Capacity").
 */
export function exportEventLoopDelay(registry: Registry): void {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  histogram.enable();
  const gauge = new Gauge({
    name: "lastword_event_loop_delay_seconds",
    help: "Event-loop delay since the previous scrape: p50, p99 and max (quantile 1)",
    labelNames: ["quantile"] as const,
    registers: [registry],
    collect() {
      const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
      gauge.set({ quantile: "0.5" }, seconds(histogram.percentile(50)));
      gauge.set({ quantile: "0.99" }, seconds(histogram.percentile(99)));
      gauge.set({ quantile: "1" }, seconds(histogram.max));
      histogram.reset();
    },
  });
}
