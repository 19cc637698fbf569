import type { KeyLookupResponse, KeyVersionsResponse } from "@lastword/dataplane";
import type { HostedLog, LogRecord } from "../hosting/hosted-log";
import { requireKeyIndex, scanLog } from "../hosting/indexed-log";
import type { PartitionHost } from "../hosting/partition-host";

function wireHeaders(record: LogRecord) {
  return record.headers.map((h) => ({ key: h.key, value: h.value?.toString("base64") ?? null }));
}

/**
 * The key's latest record by a full scan of what `log` serves: only when two keys' index hashes
 * collide, or when the index's entry is an append not yet durable (at or past the visible end).
 */
async function scanForLatest(log: HostedLog, key: Buffer): Promise<LogRecord | null> {
  let latest: LogRecord | null = null;
  for await (const page of scanLog(log, log.logStartOffset, log.logEndOffset))
    for (const r of page) if (r.key?.equals(key)) latest = r;
  return latest;
}

/**
 * Latest live value of a key: one index probe and one positioned read, no scan. The index also
 * holds appends still waiting for their commit to object storage; when the key's entry is one of
 * them (at or past the durable end `log` is bounded by), the answer is the one from before that
 * append, found by a scan below the durable end.
 */
export function lookupKey(host: PartitionHost, partitionId: string, key: Buffer): Promise<KeyLookupResponse> {
  return host.read(partitionId, async (log) => {
    const entry = requireKeyIndex(log).index.get(key);
    const logEndOffset = log.logEndOffset;
    if (!entry || entry.offset < log.logStartOffset) return { record: null, logEndOffset };
    if (entry.offset >= logEndOffset) return answerFrom(await scanForLatest(log, key), logEndOffset);
    // The index keeps a tombstoned key until a pass removes the tombstone: say so, because older
    // values may still sit beneath it (erasure needs those partitions too).
    if (entry.tombstone) return { record: null, logEndOffset, tombstoneOffset: entry.offset };
    // The index holds committed offsets only; one past the LSO (a plain record after an open
    // transaction) is read as stored.
    const [found] = await log.read(entry.offset, { maxRecords: 1, isolation: "read_uncommitted" });
    // Gone (retention removed it) → no value; another key's record → the hashes collided.
    if (!found || found.offset !== entry.offset) return { record: null, logEndOffset };
    return answerFrom(found.key?.equals(key) ? found : await scanForLatest(log, key), logEndOffset);
  });
}

function answerFrom(record: LogRecord | null, logEndOffset: number): KeyLookupResponse {
  if (!record) return { record: null, logEndOffset };
  if (record.value === null) return { record: null, logEndOffset, tombstoneOffset: record.offset };
  return {
    record: {
      offset: record.offset,
      timestamp: record.timestamp,
      value: record.value.toString("base64"),
      headers: wireHeaders(record),
    },
    logEndOffset,
  };
}

/** Every retained record of one key, with the segment holding it: a scan of this one partition. */
export function keyVersions(
  host: PartitionHost,
  partitionId: string,
  key: Buffer,
): Promise<KeyVersionsResponse> {
  return host.read(partitionId, async (log) => {
    const bases = (await log.segments()).map((s) => s.baseOffset).sort((a, b) => a - b);
    const versions: KeyVersionsResponse["versions"] = [];
    for await (const page of scanLog(log, log.logStartOffset)) {
      for (const r of page) {
        if (!r.key?.equals(key)) continue;
        versions.push({
          offset: r.offset,
          timestamp: r.timestamp,
          value: r.value?.toString("base64") ?? null,
          segmentBaseOffset: segmentOf(bases, r.offset),
        });
      }
    }
    return { versions, logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
  });
}

function segmentOf(sortedBases: readonly number[], offset: number): number {
  let lo = 0;
  let hi = sortedBases.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sortedBases[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return sortedBases[lo] ?? 0;
}
