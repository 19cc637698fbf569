import fs from "node:fs";
import type { TopicConfig } from "@lastword/topic-config";
import type { Segment } from "./segment";

export type RetentionReason = "log-start-offset" | "size" | "time";

export interface RetentionRule {
  reason: RetentionReason;
  /** Kafka's predicate over (segment, next segment or undefined for the last). */
  qualifies: (segment: Segment, next: Segment | undefined) => boolean;
}

/** Kafka's largestTimestamp: the max record timestamp, or the file mtime when there is none. */
export function largestTimestamp(segment: Segment): number {
  if (segment.maxTimestamp >= 0) return segment.maxTimestamp;
  if (segment.remote) return segment.remote.largestTimestampMs;
  return fs.statSync(segment.filePath("log")).mtimeMs;
}

/**
 * The rules `applyRetention` runs, in Kafka's order (UnifiedLog.deleteOldSegments): the log
 * start offset always; size then time only when `delete` is in the policy.
 */
export function retentionRules(
  config: TopicConfig,
  state: { logStartOffset: number; nowMs: number; totalBytes: number },
): RetentionRule[] {
  const rules: RetentionRule[] = [
    {
      reason: "log-start-offset",
      qualifies: (_segment, next) => next !== undefined && next.baseOffset <= state.logStartOffset,
    },
  ];
  if (!config.cleanupPolicy.delete) return rules;
  if (config.retentionBytes >= 0) {
    // At least retention.bytes stays: a segment goes only while the excess still covers it. The
    // excess is taken when this rule's scan starts, after the rules before it deleted segments.
    let excess: number | null = null;
    rules.push({
      reason: "size",
      qualifies: (segment) => {
        excess ??= state.totalBytes - config.retentionBytes;
        if (excess - segment.sizeBytes < 0) return false;
        excess -= segment.sizeBytes;
        return true;
      },
    });
  }
  if (config.retentionMs >= 0) {
    rules.push({
      reason: "time",
      qualifies: (segment) => state.nowMs - largestTimestamp(segment) > config.retentionMs,
    });
  }
  return rules;
}

/**
 * Kafka's deletableSegments: oldest first, stopping at the first segment that does not qualify.
 * A segment also needs all its offsets below the high watermark, and the last one must be
 * non-empty.
 */
export function deletableSegments(
  segments: readonly Segment[],
  rule: RetentionRule,
  highWatermark: number,
  logEndOffset: number,
): Segment[] {
  const deletable: Segment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1];
    const upperBound = next ? next.baseOffset : logEndOffset;
    if (highWatermark < upperBound) break;
    if (!next && segment.isEmpty) break;
    if (!rule.qualifies(segment, next)) break;
    deletable.push(segment);
  }
  return deletable;
}
