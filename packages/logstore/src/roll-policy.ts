import { maxSegmentMs, type TopicConfig } from "@lastword/topic-config";
import type { Segment } from "./segment";

const INT_MAX = 2147483647;

export type RollReason = "size" | "time" | "index-full" | "offset-overflow";

export interface IncomingBatch {
  sizeBytes: number;
  maxTimestamp: number;
  lastOffset: number;
}

/**
 * Kafka's LogSegment.shouldRoll, checked before each append. Time is measured from the first
 * batch's timestamp to the incoming batch's (wall clock only when the segment has no timestamp).
 */
export function rollReason(
  segment: Segment,
  incoming: IncomingBatch,
  config: TopicConfig,
  nowMs: number,
): RollReason | null {
  if (segment.sizeBytes + incoming.sizeBytes > config.segmentBytes) return "size";
  if (!segment.isEmpty) {
    const waitedMs =
      segment.firstBatchTimestamp >= 0
        ? incoming.maxTimestamp - segment.firstBatchTimestamp
        : nowMs - segment.createdMs;
    if (waitedMs > maxSegmentMs(config) - segment.rollJitterMs) return "time";
    // Kafka also rolls an empty segment with a full index; with no entries to free that would loop.
    if (segment.isIndexFull) return "index-full";
  }
  if (incoming.lastOffset - segment.baseOffset > INT_MAX) return "offset-overflow";
  return null;
}

/**
 * Beyond Kafka: when an idle, non-empty active segment becomes old enough to roll by time
 * without waiting for an append (so it can be compacted or retained). Null while empty.
 */
export function timeRollDueAt(segment: Segment, config: TopicConfig): number | null {
  if (segment.isEmpty) return null;
  const start = segment.firstBatchTimestamp >= 0 ? segment.firstBatchTimestamp : segment.createdMs;
  return start + maxSegmentMs(config) - segment.rollJitterMs + 1;
}

/** Kafka's per-segment jitter: uniform in [0, min(segment.jitter.ms, maxSegmentMs)). */
export function drawRollJitterMs(config: TopicConfig, random: () => number): number {
  const bound = Math.min(config.segmentJitterMs, maxSegmentMs(config));
  return bound > 0 ? Math.floor(random() * bound) : 0;
}
