import type { TopicConfig } from "@lastword/topic-config";
import type { LogSegment } from "../hosting/hosted-log";

/**
 * Whether a retention pass would delete something now, judged from the segment list alone so the
 * scheduler can ask it of thousands of partitions per tick. Mirrors the log store's rules: segments
 * go oldest first and the scan stops at the first that does not qualify, so only the oldest matters.
 */
export function retentionDue(
  config: Pick<TopicConfig, "cleanupPolicy" | "retentionMs" | "retentionBytes">,
  segments: readonly LogSegment[],
  logStartOffset: number,
  nowMs: number,
): boolean {
  const oldest = segments[0];
  if (!oldest) return false;
  const next = segments[1];
  if (next && next.baseOffset <= logStartOffset) return true;
  if (!config.cleanupPolicy.delete || oldest.records === 0) return false;
  if (
    config.retentionMs >= 0 &&
    oldest.maxTimestamp !== null &&
    oldest.maxTimestamp < nowMs - config.retentionMs
  ) {
    return true;
  }
  if (config.retentionBytes < 0) return false;
  const totalBytes = segments.reduce((sum, segment) => sum + segment.sizeBytes, 0);
  return totalBytes - oldest.sizeBytes >= config.retentionBytes;
}
