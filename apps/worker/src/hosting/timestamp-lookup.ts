import type { HostedLog } from "./hosted-log";

const SCAN_BATCH_RECORDS = 1_000;

/**
 * Kafka's ListOffsets by timestamp: the first offset whose timestamp is ≥ `timestamp`, or null when
 * no record is that recent. Segments whose max timestamp is older are skipped whole; the scan then
 * reads forward from the first segment that can hold a match (timestamps need not be monotonic).
 */
export async function offsetForTimestamp(log: HostedLog, timestamp: number): Promise<number | null> {
  const segments = await log.segments();
  const first = segments.find((s) => s.maxTimestamp !== null && s.maxTimestamp >= timestamp && s.records > 0);
  if (!first) return null;
  let from = Math.max(first.baseOffset, log.logStartOffset);
  while (from < log.logEndOffset) {
    const records = await log.read(from, { maxRecords: SCAN_BATCH_RECORDS });
    if (records.length === 0) return null;
    for (const record of records) if (record.timestamp >= timestamp) return record.offset;
    from = records[records.length - 1]!.offset + 1;
  }
  return null;
}
