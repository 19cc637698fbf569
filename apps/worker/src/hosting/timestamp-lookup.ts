import type { TimestampAndOffset } from "@lastword/logstore";
import type { HostedLog } from "./hosted-log";

/**
 * Kafka's ListOffsets by timestamp, for REST offsets-by-time and Kafka ListOffsets alike: the first
 * record whose timestamp is ≥ `timestamp` (its offset and timestamp), or null when no readable
 * record is that recent. The log searches through its time index; a match at or past the high
 * watermark `log` reports is not readable yet (a read view may end below the log's own), and every
 * later record is past it too, so it is none.
 */
export async function offsetForTimestamp(
  log: HostedLog,
  timestamp: number,
): Promise<TimestampAndOffset | null> {
  const found = await log.offsetForTimestamp(timestamp);
  return found !== null && found.offset < log.highWatermark ? found : null;
}
