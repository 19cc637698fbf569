// Which part of a partition a cleaning pass may touch, and whether one is due (Kafka's
// LogCleanerManager.cleanableOffsets, LogToClean and maxCompactionDelay; reference §2.2–2.3).
// Pure functions over segment summaries, so the rules are testable without a disk.

/** What the range rules need to know of one segment. */
export interface SegmentSummary {
  baseOffset: number;
  sizeBytes: number;
  /** Timestamp of the segment's first batch; ≤ 0 or null when unknown (ignored, as in Kafka). */
  firstTimestamp: number | null;
  /** Largest record timestamp in the segment; null when it holds no records. */
  maxTimestamp: number | null;
  active: boolean;
}

export interface CompactionTimingConfig {
  minCleanableDirtyRatio: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
}

export interface CleanableRange {
  firstDirtyOffset: number;
  /** Base of the first segment a pass may not clean: the active one, or one too young for min lag. */
  firstUncleanableOffset: number;
  cleanBytes: number;
  dirtyBytes: number;
  dirtyRatio: number;
  /** How far past `max.compaction.lag.ms` the oldest dirty record is (Kafka's compaction delay). */
  maxCompactionDelayMs: number;
  /** True when the checkpoint was outside [logStartOffset, logEndOffset] and was reset. */
  checkpointReset: boolean;
}

/** Kafka's rule: a checkpoint below the log start or past the log end restarts at the log start. */
export function resolveFirstDirtyOffset(
  checkpoint: number | null,
  logStartOffset: number,
  logEndOffset: number,
): number {
  if (checkpoint === null || checkpoint < logStartOffset || checkpoint > logEndOffset) return logStartOffset;
  return checkpoint;
}

/** Index of the segment holding `offset` (the last one with base ≤ offset), or -1 if none. */
export function segmentIndexFor(segments: readonly SegmentSummary[], offset: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.baseOffset <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The bound before rounding: min(active base, first segment too young for min lag), ≥ firstDirty. */
function uncleanableBound(
  segments: readonly SegmentSummary[],
  firstDirtyOffset: number,
  config: CompactionTimingConfig,
  nowMs: number,
): number {
  const active = segments[segments.length - 1]!;
  let bound = active.baseOffset;
  if (config.minCompactionLagMs > 0) {
    const from = Math.max(0, segmentIndexFor(segments, firstDirtyOffset));
    for (let i = from; i < segments.length - 1; i++) {
      const seg = segments[i]!;
      if (seg.maxTimestamp !== null && seg.maxTimestamp > nowMs - config.minCompactionLagMs) {
        bound = Math.min(bound, seg.baseOffset);
        break;
      }
    }
  }
  return Math.max(firstDirtyOffset, bound);
}

/** Sum of sizes of segments overlapping [from, to) (Kafka's logSegments(from, to)). */
function bytesOverlapping(segments: readonly SegmentSummary[], from: number, to: number): number {
  if (to <= from) return 0;
  let bytes = 0;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const next = segments[i + 1]?.baseOffset ?? Number.POSITIVE_INFINITY;
    if (seg.baseOffset < to && next > from) bytes += seg.sizeBytes;
  }
  return bytes;
}

/** Kafka's maxCompactionDelay: overshoot of the earliest dirty first-batch timestamp past max lag. */
export function maxCompactionDelayMs(
  segments: readonly SegmentSummary[],
  firstDirtyOffset: number,
  maxCompactionLagMs: number,
  nowMs: number,
): number {
  const earliest = earliestDirtyTimestamp(segments, firstDirtyOffset);
  if (earliest === null) return 0;
  const cleanUntil = nowMs - Math.max(maxCompactionLagMs, 0);
  return cleanUntil > earliest ? cleanUntil - earliest : 0;
}

/** Earliest positive first-batch timestamp among dirty closed segments, or null. */
export function earliestDirtyTimestamp(
  segments: readonly SegmentSummary[],
  firstDirtyOffset: number,
): number | null {
  let earliest: number | null = null;
  const from = Math.max(0, segmentIndexFor(segments, firstDirtyOffset));
  for (let i = from; i < segments.length - 1; i++) {
    const ts = segments[i]!.firstTimestamp;
    if (ts !== null && ts > 0 && (earliest === null || ts < earliest)) earliest = ts;
  }
  return earliest;
}

/** The cleanable range and its sizes at `nowMs`; `segments` are in offset order, the last is active. */
export function computeCleanableRange(
  segments: readonly SegmentSummary[],
  checkpoint: number | null,
  logStartOffset: number,
  logEndOffset: number,
  config: CompactionTimingConfig,
  nowMs: number,
  firstUnstableOffset: number | null = null,
): CleanableRange {
  const firstDirtyOffset = resolveFirstDirtyOffset(checkpoint, logStartOffset, logEndOffset);
  // Kafka's rule: the cleaner never goes past the first offset of an open transaction (the LSO).
  const bound = Math.max(
    firstDirtyOffset,
    Math.min(uncleanableBound(segments, firstDirtyOffset, config, nowMs), firstUnstableOffset ?? Infinity),
  );
  // Round down to a segment boundary: the round always ends where a segment starts.
  const at = segmentIndexFor(segments, bound);
  const firstUncleanableOffset = segments[Math.max(at, 0)]!.baseOffset;
  const cleanBytes = bytesOverlapping(segments, Number.NEGATIVE_INFINITY, firstDirtyOffset);
  const dirtyBytes = bytesOverlapping(
    segments,
    Math.min(firstDirtyOffset, firstUncleanableOffset),
    firstUncleanableOffset,
  );
  const total = cleanBytes + dirtyBytes;
  return {
    firstDirtyOffset,
    firstUncleanableOffset,
    cleanBytes,
    dirtyBytes,
    dirtyRatio: total > 0 ? dirtyBytes / total : 0,
    maxCompactionDelayMs: maxCompactionDelayMs(segments, firstDirtyOffset, config.maxCompactionLagMs, nowMs),
    checkpointReset: checkpoint !== null && checkpoint !== firstDirtyOffset,
  };
}

/**
 * Whether a pass would run at `nowMs`: Kafka's ratio (strictly above the minimum) or max-lag rule,
 * or, beyond Kafka, a kept tombstone whose delete horizon has passed.
 */
export function isCleaningDue(
  range: CleanableRange,
  config: CompactionTimingConfig,
  earliestDeleteHorizonMs: number | null,
  nowMs: number,
): boolean {
  if (range.cleanBytes + range.dirtyBytes === 0) return false;
  if (range.maxCompactionDelayMs > 0 && range.dirtyBytes > 0) return true;
  if (range.dirtyRatio > config.minCleanableDirtyRatio) return true;
  return earliestDeleteHorizonMs !== null && earliestDeleteHorizonMs <= nowMs;
}

export interface CleaningClockInput {
  segments: readonly SegmentSummary[];
  checkpoint: number | null;
  logStartOffset: number;
  logEndOffset: number;
  config: CompactionTimingConfig;
  earliestDeleteHorizonMs: number | null;
}

/** Times at which, with no writes, one of the due rules can flip: max lag, min lag, a horizon. */
function dueCandidates(input: CleaningClockInput, nowMs: number): number[] {
  const { segments, config } = input;
  const times = [nowMs];
  const range = computeCleanableRange(
    segments,
    input.checkpoint,
    input.logStartOffset,
    input.logEndOffset,
    config,
    nowMs,
  );
  const earliest = earliestDirtyTimestamp(segments, range.firstDirtyOffset);
  // Kafka's delay is positive only once now - maxLag > earliest, i.e. one ms after the deadline.
  if (earliest !== null) times.push(earliest + config.maxCompactionLagMs + 1);
  if (config.minCompactionLagMs > 0) {
    for (const seg of segments)
      if (seg.maxTimestamp !== null) times.push(seg.maxTimestamp + config.minCompactionLagMs);
  }
  if (input.earliestDeleteHorizonMs !== null) times.push(input.earliestDeleteHorizonMs);
  // Kafka's Long.MAX_VALUE limits are held as MAX_SAFE_INTEGER: a time at or past it is never.
  return times.filter((t) => t >= nowMs && t < Number.MAX_SAFE_INTEGER).sort((a, b) => a - b);
}

/**
 * The earliest time ≥ now at which a pass becomes due if nothing is written: the max-lag deadline,
 * a young segment ageing past min lag (which can lift the ratio), or a delete horizon. Null when
 * no such time exists. Every due rule only turns true as time passes, so checking the candidate
 * times in order finds the first.
 */
export function nextCleanDueAt(input: CleaningClockInput, nowMs: number): number | null {
  if (input.segments.length === 0) return null;
  for (const t of dueCandidates(input, nowMs)) {
    const range = computeCleanableRange(
      input.segments,
      input.checkpoint,
      input.logStartOffset,
      input.logEndOffset,
      input.config,
      t,
    );
    if (isCleaningDue(range, input.config, input.earliestDeleteHorizonMs, t)) return t;
  }
  return null;
}
