import type { TopicConfig } from "@lastword/topic-config";
import type { CleanResult, CleanTrigger } from "./clean-result";
import type { CleanableLog } from "./cleanable-log";
import {
  type CleanableRange,
  type CompactionTimingConfig,
  computeCleanableRange,
  isCleaningDue,
  nextCleanDueAt,
  type SegmentSummary,
} from "./cleanable-range";
import { type CleanerCheckpoint, readCleanerCheckpoint, writeCleanerCheckpoint } from "./cleaner-checkpoint";
import { reachFaultPoint } from "./cleaner-fault-points";
import { CleaningPass, PassAborted } from "./cleaning-pass";
import { InvalidConfigError } from "./errors";
import { Mutex } from "./mutex";
import { OFFSET_MAP_LOAD_FACTOR, offsetMapMaxEntries } from "./offset-map";
import type { Segment } from "./segment";

// Kafka's log cleaner for one partition (reference §2): pick the cleanable range, map the dirty
// keys to their latest offsets within a fixed budget, recopy every segment up to the end of the
// mapped range in size-bounded groups, swap each group in crash-safely, then checkpoint.
//
// Concurrency: a pass reads closed segments without holding the log's mutex, yielding to the event
// loop every few MiB; appends, reads and rolls go on meanwhile. Each swap takes the mutex and first
// checks that the group's segments are still live (retention or close may have removed them); if
// not, the pass stops there, as Kafka aborts a round, and the checkpoint is not moved.

export interface CleanableStats {
  cleanBytes: number;
  dirtyBytes: number;
  dirtyRatio: number;
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  maxCompactionDelayMs: number;
  /** A pass would run now (ratio strictly above the minimum, max lag overdue, or a horizon passed). */
  cleanable: boolean;
}

/** Throws INVALID_CONFIG when the budget cannot hold a single map entry (Kafka's cleaner check). */
export function validateDedupeBufferBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || offsetMapMaxEntries(bytes) < 1) {
    throw new InvalidConfigError(
      `dedupeBufferBytes must be an integer of at least 48 (two 24-byte offset-map slots at load factor ${OFFSET_MAP_LOAD_FACTOR}), got ${bytes}`,
    );
  }
}

function timingOf(config: TopicConfig): CompactionTimingConfig {
  return {
    minCleanableDirtyRatio: config.minCleanableDirtyRatio,
    minCompactionLagMs: config.minCompactionLagMs,
    maxCompactionLagMs: config.maxCompactionLagMs,
  };
}

function summarize(segments: readonly Segment[]): SegmentSummary[] {
  return segments.map((segment, i) => ({
    baseOffset: segment.baseOffset,
    sizeBytes: segment.sizeBytes,
    firstTimestamp: segment.firstBatchTimestamp >= 0 ? segment.firstBatchTimestamp : null,
    maxTimestamp: segment.recordCount > 0 || segment.sizeBytes > 0 ? segment.maxTimestamp : null,
    active: i === segments.length - 1,
  }));
}

/** How a targeted rewrite may go beyond a round's rules (erasure only). */
export interface PurgeOptions {
  /** Rewrite segments min.compaction.lag.ms still protects (their other keys are kept as they are). */
  ignoreMinCompactionLag?: boolean;
}

export class LogCleaner {
  private checkpoint: CleanerCheckpoint | null;
  private readonly passes = new Mutex();

  constructor(private readonly log: CleanableLog) {
    this.checkpoint = readCleanerCheckpoint(log.dir);
  }

  private range(nowMs: number, timing: CompactionTimingConfig = timingOf(this.log.config)): CleanableRange {
    const log = this.log;
    return computeCleanableRange(
      summarize(log.segmentObjects),
      this.checkpoint?.firstDirtyOffset ?? null,
      log.logStartOffset,
      log.logEndOffset,
      timing,
      nowMs,
      log.firstUnstableOffset(),
    );
  }

  private trigger(range: CleanableRange, nowMs: number): CleanTrigger | null {
    const timing = timingOf(this.log.config);
    const horizon = this.checkpoint?.earliestDeleteHorizonMs ?? null;
    if (!this.log.config.cleanupPolicy.compact || !isCleaningDue(range, timing, horizon, nowMs)) return null;
    if (range.maxCompactionDelayMs > 0 && range.dirtyBytes > 0) return "max-compaction-lag";
    if (range.dirtyRatio > timing.minCleanableDirtyRatio) return "dirty-ratio";
    return "delete-horizon";
  }

  stats(): CleanableStats {
    const nowMs = this.log.clock.now();
    const range = this.range(nowMs);
    return {
      cleanBytes: range.cleanBytes,
      dirtyBytes: range.dirtyBytes,
      dirtyRatio: range.dirtyRatio,
      firstDirtyOffset: range.firstDirtyOffset,
      firstUncleanableOffset: range.firstUncleanableOffset,
      maxCompactionDelayMs: range.maxCompactionDelayMs,
      cleanable: this.trigger(range, nowMs) !== null,
    };
  }

  nextCleanDueAt(): number | null {
    const log = this.log;
    if (!log.config.cleanupPolicy.compact) return null;
    return nextCleanDueAt(
      {
        segments: summarize(log.segmentObjects),
        checkpoint: this.checkpoint?.firstDirtyOffset ?? null,
        logStartOffset: log.logStartOffset,
        logEndOffset: log.logEndOffset,
        config: timingOf(log.config),
        earliestDeleteHorizonMs: this.checkpoint?.earliestDeleteHorizonMs ?? null,
      },
      log.clock.now(),
    );
  }

  /** One pass when due (or whenever `force`); passes on one log never overlap. */
  clean(options: { force?: boolean } = {}): Promise<CleanResult> {
    return this.passes.run(() => this.pass(options.force ?? false));
  }

  /**
   * A targeted rewrite (beyond Kafka, for erasure): the closed segments at `baseOffsets` that lie
   * below the uncleanable offset (min.compaction.lag.ms holds) and start below `belowOffset` are
   * rewritten without the records of `key` below `belowOffset` — what a round would remove for
   * that key — and what a round always removes there (tombstones past their horizon, keyless
   * records). Evicted ones are fetched back first. The dirty offset does not move; horizons it
   * stamps are kept in the checkpoint so their pass becomes due. `ignoreMinCompactionLag`: an
   * erasure that would otherwise miss its deadline removes the key's records however young their
   * segments are (only the active segment stays out of reach); the other keys are untouched.
   */
  purge(
    key: Buffer,
    belowOffset: number,
    baseOffsets: readonly number[],
    options: PurgeOptions = {},
  ): Promise<CleanResult> {
    return this.passes.run(async () => {
      const startedAtMs = this.log.clock.now();
      const wallStart = performance.now();
      const timing = timingOf(this.log.config);
      const range = this.range(
        startedAtMs,
        options.ignoreMinCompactionLag ? { ...timing, minCompactionLagMs: 0 } : timing,
      );
      const result = emptyResult(range, startedAtMs);
      if (this.log.isClosed || !this.log.config.cleanupPolicy.compact) return result;
      const bases = new Set(baseOffsets.filter((base) => base < belowOffset));
      for (const segment of [...this.log.segmentObjects]) {
        if (segment.remote !== null && bases.has(segment.baseOffset)) await this.log.fetchBack(segment);
      }
      result.trigger = "targeted";
      const run = new CleaningPass(this.log, range, startedAtMs, result, { key, offset: belowOffset, bases });
      try {
        await run.execute();
        result.cleaned = result.segmentsWritten > 0;
      } catch (error) {
        if (!(error instanceof PassAborted)) throw error;
        result.abortedReason = error.message;
      } finally {
        this.keepHorizon(range.firstDirtyOffset, run.earliestDeleteHorizonMs);
        if (this.checkpoint && !this.log.isClosed) writeCleanerCheckpoint(this.log.dir, this.checkpoint);
        if (result.segmentsWritten > 0 && !this.log.isClosed) this.log.checkpointTombstoneCounts();
        result.durationMs = performance.now() - wallStart;
        result.recopyPercent = (100 * result.bytesWritten) / Math.max(result.bytesRead, 1);
      }
      return result;
    });
  }

  /** Runs `fn` while no pass runs (evicting a segment must not pull a file from under a pass). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.passes.run(fn);
  }

  private async pass(force: boolean): Promise<CleanResult> {
    const startedAtMs = this.log.clock.now();
    const wallStart = performance.now();
    const range = this.range(startedAtMs);
    const due = this.trigger(range, startedAtMs);
    const total = range.cleanBytes + range.dirtyBytes;
    const result = emptyResult(range, startedAtMs);
    if (
      this.log.isClosed ||
      !this.log.config.cleanupPolicy.compact ||
      total === 0 ||
      (due === null && !force)
    ) {
      return result;
    }
    result.trigger = due ?? "forced";
    // The pass reads every closed segment below the uncleanable offset: evicted ones come back
    // first (the remote tier's copies are replaced by the cleaned segments once uploaded again).
    for (const segment of [...this.log.segmentObjects]) {
      if (segment.remote !== null && segment.baseOffset < range.firstUncleanableOffset) {
        await this.log.fetchBack(segment);
      }
    }
    const run = new CleaningPass(this.log, range, startedAtMs, result);
    try {
      const next = await run.execute();
      this.checkpoint = next;
      writeCleanerCheckpoint(this.log.dir, next);
      reachFaultPoint("checkpoint-written");
      result.cleaned = true;
      result.nextDirtyOffset = next.firstDirtyOffset;
    } catch (error) {
      if (!(error instanceof PassAborted)) throw error;
      result.abortedReason = error.message;
      this.keepHorizon(range.firstDirtyOffset, run.earliestDeleteHorizonMs);
    } finally {
      if (result.segmentsWritten > 0 && !this.log.isClosed) this.log.checkpointTombstoneCounts();
      result.durationMs = performance.now() - wallStart;
      result.recopyPercent = (100 * result.bytesWritten) / Math.max(result.bytesRead, 1);
    }
    return result;
  }

  /** After an aborted pass, groups already swapped may hold new horizons: keep the earliest. */
  private keepHorizon(firstDirtyOffset: number, horizonMs: number | null): void {
    if (horizonMs === null) return;
    const earliest = this.checkpoint?.earliestDeleteHorizonMs ?? null;
    this.checkpoint = {
      firstDirtyOffset: this.checkpoint?.firstDirtyOffset ?? firstDirtyOffset,
      earliestDeleteHorizonMs: earliest === null ? horizonMs : Math.min(earliest, horizonMs),
    };
  }
}

function emptyResult(range: CleanableRange, startedAtMs: number): CleanResult {
  return {
    cleaned: false,
    bytesRead: 0,
    bytesWritten: 0,
    recordsRead: 0,
    recordsRemoved: 0,
    tombstonesRemoved: 0,
    removedTombstones: [],
    mapUtilization: 0,
    mapBytes: 0,
    nextDirtyOffset: range.firstDirtyOffset,
    durationMs: 0,
    mapBytesRead: 0,
    mapRecordsRead: 0,
    keylessRecordsRemoved: 0,
    abortedRecordsRemoved: 0,
    markersRemoved: 0,
    recopyPercent: 0,
    dirtyRatio: range.dirtyRatio,
    maxCompactionDelayMs: range.maxCompactionDelayMs,
    firstDirtyOffset: range.firstDirtyOffset,
    firstUncleanableOffset: range.firstUncleanableOffset,
    segmentsRead: 0,
    segmentsWritten: 0,
    trigger: null,
    startedAtMs,
    abortedReason: null,
  };
}
