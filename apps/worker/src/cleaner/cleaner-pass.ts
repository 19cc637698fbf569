import type { CleanPartitionPayload, RetainPartitionPayload } from "@lastword/jobs";
import type { CleanResult, Clock } from "@lastword/logstore";
import type { CrashHook } from "../fault-points";
import type { HostedLog } from "../hosting/hosted-log";
import type { PartitionHost } from "../hosting/partition-host";
import type { TombstoneAudit } from "../hosting/tombstone-audit";
import type { Logger } from "../logger";
import type { WorkerMetrics } from "../metrics/metrics";
import type { CleanerHealthBook } from "./cleaner-health";
import type { CleanerRunRepository } from "./cleaner-run.repository";

export type PassOutcome = "moved" | "held" | "completed" | "skipped" | "aborted" | "failed";

/** A targeted rewrite for one erasure tombstone: the segments that may hold the key, below it. */
export interface PurgeJob {
  partitionId: string;
  epoch: number;
  key: Buffer;
  belowOffset: number;
  bases: readonly number[];
  /** The erasure would miss its deadline waiting for min.compaction.lag.ms: rewrite anyway. */
  ignoreMinCompactionLag: boolean;
}

export interface CleanerPassesOptions {
  host: PartitionHost;
  health: CleanerHealthBook;
  runs: CleanerRunRepository;
  audit: TombstoneAudit;
  metrics: WorkerMetrics;
  logger: Logger;
  /** The worker's clock (the one its logs read): pass times, backoff and audit removal times. */
  clock: Clock;
  /** A pass or retention changed the partition's segment files (object storage follows them). */
  filesChanged?: (partitionId: string) => void;
  /** Tests only: crash points (fault-points.ts). */
  fault?: CrashHook;
}

/**
 * The job processors. Each is idempotent (BullMQ may deliver twice): a job for a partition this worker
 * no longer holds at that epoch is dropped; a pass that is not due does nothing. A pass that throws
 * marks only its partition uncleanable (cleaner-health.ts) and is recorded as a failed run.
 */
export class CleanerPasses {
  readonly lastCleanAt = new Map<string, number>();
  /**
   * Passes completed per partition: a count, not a time, so "a pass ended after this" holds even
   * when both happened in the same millisecond (or on a clock held still).
   */
  readonly completedPasses = new Map<string, number>();
  readonly #o: CleanerPassesOptions;

  constructor(options: CleanerPassesOptions) {
    this.#o = options;
  }

  async clean(job: CleanPartitionPayload): Promise<PassOutcome> {
    const { host, health, runs, audit, metrics, logger, clock } = this.#o;
    const slot = host.slot(job.partitionId);
    if (!slot || slot.epoch !== job.epoch) return "moved";
    const requested = job.reason === "requested";
    if (!requested && !health.mayRun(job.partitionId, slot.configVersion, clock.now())) return "held";
    const runId = await runs.start(job.partitionId);
    const started = performance.now();
    let result: CleanResult;
    let dirtyRatioAfter: number | null = null;
    let size: PassSize | null = null;
    try {
      result = await host.background(job.partitionId, async (log) => {
        const measure = await closedBytes(log);
        const pass = await log.clean({ force: requested });
        dirtyRatioAfter = log.isClosed ? null : log.cleanableStats().dirtyRatio;
        size = log.isClosed ? null : await measure.after();
        return pass;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const state = health.recordFailure(job.partitionId, slot.configVersion, message, clock.now());
      await runs.fail(runId, message, performance.now() - started);
      metrics.cleanerPasses.inc({ status: "failed" });
      logger.error(
        { partitionId: job.partitionId, err: error, ...state },
        "cleaner pass failed; partition uncleanable",
      );
      return "failed";
    }
    if (result.segmentsWritten > 0) {
      this.#o.fault?.("after-clean-before-upload");
      this.#o.filesChanged?.(job.partitionId);
    }
    // Tombstones the pass swapped out (an aborted pass reports those of the groups it did swap).
    audit.removed(slot.audited, runId, result.removedTombstones, new Date(clock.now()));
    const status = await runs.finish(runId, result, dirtyRatioAfter, size);
    if (status === "completed") {
      health.recordSuccess(job.partitionId);
      this.lastCleanAt.set(job.partitionId, clock.now());
      this.completedPasses.set(job.partitionId, (this.completedPasses.get(job.partitionId) ?? 0) + 1);
    }
    metrics.recordPass(result, clock.now());
    metrics.cleanerPasses.inc({ status });
    logger.info(
      { partitionId: job.partitionId, reason: job.reason, status, ...summary(result) },
      "cleaner pass",
    );
    return status;
  }

  /**
   * An erasure's targeted rewrite (the log store's `purgeKey`): the segments at `bases` lose the
   * key's records below `belowOffset`. Fenced and recorded like a pass (trigger `targeted`), its
   * removed tombstones audited, and object storage told the files changed.
   */
  async purge(job: PurgeJob): Promise<PassOutcome> {
    const { host, runs, audit, metrics, logger, clock } = this.#o;
    const slot = host.slot(job.partitionId);
    if (!slot || slot.epoch !== job.epoch) return "moved";
    const runId = await runs.start(job.partitionId);
    const started = performance.now();
    let result: CleanResult;
    let size: PassSize | null = null;
    try {
      result = await host.background(job.partitionId, async (log) => {
        const measure = await closedBytes(log);
        const rewrite = await log.purgeKey(job.key, job.belowOffset, job.bases, {
          ignoreMinCompactionLag: job.ignoreMinCompactionLag,
        });
        size = log.isClosed ? null : await measure.after();
        return rewrite;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await runs.fail(runId, message, performance.now() - started);
      logger.error({ partitionId: job.partitionId, err: error }, "targeted rewrite failed");
      return "failed";
    }
    if (result.segmentsWritten > 0) this.#o.filesChanged?.(job.partitionId);
    audit.removed(slot.audited, runId, result.removedTombstones, new Date(clock.now()));
    const status = await runs.finish(runId, result, null, size);
    if (status === "completed") {
      this.lastCleanAt.set(job.partitionId, clock.now());
      this.completedPasses.set(job.partitionId, (this.completedPasses.get(job.partitionId) ?? 0) + 1);
    }
    metrics.cleanerPasses.inc({ status });
    logger.info(
      { partitionId: job.partitionId, status, segments: job.bases.length, ...summary(result) },
      "targeted rewrite",
    );
    return status;
  }

  async retain(job: RetainPartitionPayload): Promise<number | "moved"> {
    const slot = this.#o.host.slot(job.partitionId);
    if (!slot || slot.epoch !== job.epoch) return "moved";
    const result = await this.#o.host.background(job.partitionId, (log) => log.applyRetention());
    if (result.deleted.length) {
      this.#o.filesChanged?.(job.partitionId);
      this.#o.logger.info(
        {
          partitionId: job.partitionId,
          segments: result.deleted.length,
          logStartOffset: result.logStartOffset,
        },
        "retention deleted segments",
      );
    }
    return result.deleted.length;
  }
}

/** A partition's closed segments' bytes before and after a pass: what it reclaimed. */
export interface PassSize {
  before: number;
  after: number;
}

/**
 * The bytes of the segments that were closed when a pass started, now and (`after`) once it ended:
 * appends and rolls during the pass land above them, so only what the pass itself did is counted.
 */
async function closedBytes(log: HostedLog): Promise<{ after(): Promise<PassSize> }> {
  const segments = await log.segments();
  const end = segments.find((s) => s.active)?.baseOffset ?? log.logEndOffset;
  const below = (list: typeof segments) =>
    list.filter((s) => !s.active && s.baseOffset < end).reduce((sum, s) => sum + s.sizeBytes, 0);
  const before = below(segments);
  return { after: async () => ({ before, after: below(await log.segments()) }) };
}

function summary(result: CleanResult) {
  return {
    trigger: result.trigger,
    bytesRead: result.bytesRead,
    bytesWritten: result.bytesWritten,
    recordsRemoved: result.recordsRemoved,
    tombstonesRemoved: result.tombstonesRemoved,
    dirtyRatio: result.dirtyRatio,
    durationMs: result.durationMs,
  };
}
