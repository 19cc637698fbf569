import { constants, PerformanceObserver } from "node:perf_hooks";
import { Counter, type Registry } from "prom-client";

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};

/**
 * The event loop's thread's garbage collections (perf_hooks "gc" entries) as Prometheus counters by
 * kind: how many, and the seconds they held the thread. A full (major) collection stops every
 * tenant's requests at once; one tenant's traffic that makes the worker collect back to back (large
 * buffers churning its external memory) is a capacity leak between tenants that the event-loop
 * delay alone hides between its samples — the noisy-neighbour bench reads both.
 */
export function exportGcPauses(registry: Registry): void {
  const count = new Counter({
    name: "lastword_gc_total",
    help: "Garbage collections on the worker's event-loop thread, by kind (major stops the thread for a full collection)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const seconds = new Counter({
    name: "lastword_gc_seconds_total",
    help: "Seconds the worker's event-loop thread spent in garbage collection, by kind",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // perf_hooks puts the collection's kind in `detail` (NODE_PERFORMANCE_GC_*).
      const kind = KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? "other";
      count.inc({ kind });
      seconds.inc({ kind }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}
