import { type CleanResult, type Clock, systemClock } from "@lastword/logstore";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { exportEventLoopDelay } from "./event-loop-delay";
import { FetchTally } from "./fetch-tally";
import { exportGcPauses } from "./gc-pauses";

/**
 * Prometheus metrics of one worker. The cleaner gauges are Kafka's LogCleaner / LogCleanerManager
 * metrics under Prometheus-legal names (kafka `max-dirty-percent` → `lastword_log_cleaner_max_dirty_percent`).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly #recentPasses: CleanResult[] = [];
  readonly #recentWindow: number;
  #lastRunEndedAtMs: number | null = null;
  readonly #clock: Clock;

  readonly maxDirtyPercent = this.#gauge(
    "max_dirty_percent",
    "Highest dirty ratio (%) among this worker's partitions",
  );
  readonly maxCompactionDelaySecs = this.#gauge(
    "max_compaction_delay_secs",
    "Longest time (s) a compactable record has waited past max.compaction.lag.ms",
  );
  readonly uncleanablePartitions = this.#gauge(
    "uncleanable_partitions_count",
    "Partitions marked uncleanable",
  );
  readonly uncleanableBytes = this.#gauge("uncleanable_bytes", "Bytes in partitions marked uncleanable");
  readonly maxCleanTimeSecs = this.#gauge("max_clean_time_secs", "Longest of the recent cleaner passes (s)");
  readonly maxBufferUtilizationPercent = this.#gauge(
    "max_buffer_utilization_percent",
    "Highest offset-map utilisation (%) of the recent passes",
  );
  readonly recopyPercent = this.#gauge(
    "cleaner_recopy_percent",
    "Bytes written / bytes read (%) of the last pass",
  );
  readonly timeSinceLastRunMs = new Gauge({
    name: "lastword_log_cleaner_time_since_last_run_ms",
    help: "Milliseconds since the last cleaner pass ended (0 before the first)",
    registers: [this.registry],
    collect: () => {
      const since = this.#lastRunEndedAtMs === null ? 0 : this.#clock.now() - this.#lastRunEndedAtMs;
      this.timeSinceLastRunMs.set(since);
    },
  });
  readonly cleanerPasses = new Counter({
    name: "lastword_log_cleaner_passes_total",
    help: "Cleaner passes by outcome",
    labelNames: ["status"] as const,
    registers: [this.registry],
  });
  readonly schedulerTickSeconds = new Histogram({
    name: "lastword_scheduler_tick_seconds",
    help: "Wall time of one scheduler tick over all owned partitions",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly schedulerTickCpuSeconds = new Histogram({
    name: "lastword_scheduler_tick_cpu_seconds",
    help: "Process CPU (user + system) spent while one scheduler tick ran",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly requestSeconds = new Histogram({
    name: "lastword_dataplane_request_seconds",
    help: "Data-plane request latency by operation and outcome",
    labelNames: ["op", "outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly leaseRenewalsLate = new Counter({
    name: "lastword_lease_renewals_late_total",
    help: "Lease renewals begun more than two renewal intervals (2 × TTL/3) after the last successful one: at least one was missed",
    registers: [this.registry],
  });
  readonly records = new Counter({
    name: "lastword_dataplane_records_total",
    help: "Records produced or fetched through the data plane",
    labelNames: ["op"] as const,
    registers: [this.registry],
  });

  /** Records fetched per partition, for the per-minute samples (not a Prometheus series: one per partition). */
  readonly fetched = new FetchTally();

  /** `clock`: the one pass end times are read from (the worker's). */
  constructor(cleanerThreads = 1, clock: Clock = systemClock) {
    this.#recentWindow = Math.max(1, cleanerThreads);
    this.#clock = clock;
    exportEventLoopDelay(this.registry);
    exportGcPauses(this.registry);
  }

  /** Kafka reports max clean time and buffer use over the last pass of each cleaner thread. */
  recordPass(result: CleanResult, endedAtMs: number): void {
    this.#lastRunEndedAtMs = endedAtMs;
    if (!result.cleaned) return;
    this.#recentPasses.push(result);
    if (this.#recentPasses.length > this.#recentWindow) this.#recentPasses.shift();
    this.maxCleanTimeSecs.set(Math.max(...this.#recentPasses.map((r) => r.durationMs)) / 1000);
    this.maxBufferUtilizationPercent.set(100 * Math.max(...this.#recentPasses.map((r) => r.mapUtilization)));
    this.recopyPercent.set(result.recopyPercent);
  }

  #gauge(name: string, help: string): Gauge {
    return new Gauge({ name: `lastword_log_cleaner_${name}`, help, registers: [this.registry] });
  }
}
