import { once } from "node:events";
import type { ServerResponse } from "node:http";
import {
  DataPlaneError,
  encodeEndFrame,
  encodeErrorFrame,
  encodeRecordFrames,
  type KeyLookupResponse,
  type KeyVersionsResponse,
  STREAM_CONTENT_TYPE,
  type StreamQuery,
} from "@lastword/dataplane";
import type { HostedLog, LogRecord } from "./hosted-log";
import { type KeyIndexedLog, keyIndexOf, SCAN_READ_BYTES, scanLog } from "./indexed-log";
import { dataPlaneErrorOf } from "./log-errors";
import type { PartitionHost } from "./partition-host";

function indexedLog(log: HostedLog): KeyIndexedLog {
  const state = keyIndexOf(log);
  if (state) return state;
  throw new DataPlaneError("INTERNAL", "this partition is hosted without a key index");
}

function wireHeaders(record: LogRecord) {
  return record.headers.map((h) => ({ key: h.key, value: h.value?.toString("base64") ?? null }));
}

/** The key's latest record by a full scan: only when two keys' index hashes collide. */
async function scanForLatest(log: HostedLog, key: Buffer): Promise<LogRecord | null> {
  let latest: LogRecord | null = null;
  for await (const page of scanLog(log, log.logStartOffset))
    for (const r of page) if (r.key?.equals(key)) latest = r;
  return latest;
}

/** Latest live value of a key: one index probe and one positioned read, no scan. */
export function lookupKey(host: PartitionHost, partitionId: string, key: Buffer): Promise<KeyLookupResponse> {
  return host.read(partitionId, async (log) => {
    const entry = indexedLog(log).index.get(key);
    const logEndOffset = log.logEndOffset;
    if (!entry || entry.offset < log.logStartOffset) return { record: null, logEndOffset };
    // The index keeps a tombstoned key until a pass removes the tombstone: say so, because older
    // values may still sit beneath it (erasure needs those partitions too).
    if (entry.tombstone) return { record: null, logEndOffset, tombstoneOffset: entry.offset };
    const [found] = await log.read(entry.offset, { maxRecords: 1 });
    // Gone (retention removed it) → no value; another key's record → the hashes collided.
    if (!found || found.offset !== entry.offset) return { record: null, logEndOffset };
    const record = found.key?.equals(key) ? found : await scanForLatest(log, key);
    if (!record || record.value === null) return { record: null, logEndOffset };
    return {
      record: {
        offset: record.offset,
        timestamp: record.timestamp,
        value: record.value.toString("base64"),
        headers: wireHeaders(record),
      },
      logEndOffset,
    };
  });
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

/**
 * The pages a stream sends: a replay reads every record in [from, end); a snapshot reads only from
 * each live record's offset on (the frozen index lists them), so the superseded stretches of a dirty
 * log between them are never read, and keeps the records that are their key's latest.
 */
async function* streamPages(log: HostedLog, from: number, end: number, live: Float64Array | null) {
  if (!live) {
    for await (const page of scanLog(log, from, end)) yield page;
    return;
  }
  for (let i = 0; i < live.length && live[i]! < end; ) {
    const page = await log.read(Math.max(live[i]!, log.logStartOffset), { maxBytes: SCAN_READ_BYTES });
    const last = page[page.length - 1];
    if (!last) return;
    yield page;
    while (i < live.length && live[i]! <= last.offset) i++;
  }
}

/**
 * Streams a partition as binary frames: `replay` sends every record in [offset, end), `snapshot`
 * only the latest live record of each key as of `end` (the index frozen at the start). `end` is
 * the log end when the stream began, sent last so the reader knows what state it now holds.
 * Writes wait for the socket to drain, so a slow reader slows the scan instead of filling memory.
 */
export async function streamPartition(
  host: PartitionHost,
  partitionId: string,
  query: StreamQuery,
  res: ServerResponse,
): Promise<void> {
  // The log is taken, not held: a close under the stream fails its next read (LOG_CLOSED), and the
  // reader is told in an error frame, rather than the worker's shutdown waiting on a slow reader.
  const log = await host.read(partitionId, async (l) => l);
  let end = log.logEndOffset;
  let from = query.offset;
  let keep: (r: LogRecord) => boolean = () => true;
  let live: Float64Array | null = null;
  let release = () => {};
  if (query.mode === "snapshot") {
    const frozen = await indexedLog(log).freeze();
    release = frozen.release;
    end = frozen.endOffset;
    from = 0;
    const offsets = frozen.index.liveOffsets();
    live = offsets;
    // Records come in offset order, so membership in the sorted live offsets is a moving pointer (no
    // key hashing per record). An offset the index holds is its key's latest, and not a tombstone.
    let next = 0;
    keep = (r) => {
      while (next < offsets.length && offsets[next]! < r.offset) next++;
      return offsets[next] === r.offset;
    };
  }
  const closed = once(res, "close").then(() => undefined);
  try {
    res.writeHead(200, { "content-type": STREAM_CONTENT_TYPE });
    for await (const page of streamPages(log, from, end, live)) {
      const picked = page.filter((r) => r.offset < end && keep(r));
      if (picked.length && !res.write(encodeRecordFrames(picked))) {
        await Promise.race([once(res, "drain"), closed]);
      }
      if (res.destroyed) return;
    }
    res.end(encodeEndFrame(Math.max(end, from), log.logStartOffset));
  } catch (error) {
    const failure = dataPlaneErrorOf(error);
    res.end(encodeErrorFrame({ code: failure.code, message: failure.message, retriable: failure.retriable }));
  } finally {
    release();
  }
}
