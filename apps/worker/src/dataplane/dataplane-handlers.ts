import { once } from "node:events";
import type { ServerResponse } from "node:http";
import {
  type CleanerState,
  FETCH_LOG_END_HEADER,
  type FetchQuery,
  type ListOffsetsResponse,
  type SegmentState,
  type SegmentsResponse,
} from "@lastword/dataplane";
import { encodeEndFrame, encodeRecordFrames, STREAM_CONTENT_TYPE } from "@lastword/frames";
import type { CleanableStats } from "@lastword/logstore";
import type { CleanerHealthBook } from "../cleaner/cleaner-health";
import type { HostedLog } from "../hosting/hosted-log";
import type { PartitionHost } from "../hosting/partition-host";
import { offsetForTimestamp } from "../hosting/timestamp-lookup";
import type { Logger } from "../logger";
import { FetchPager } from "./fetch-pager";

/** Bytes of records (key + value + a record's fixed fields, roughly) per batch frame of a fetch. */
const FETCH_FRAME_BYTES = 256 << 10;

/**
 * A fetch answered as binary frames (@lastword/frames, the replay/snapshot format), read from the
 * log page by page (`fetch-pager.ts`: bounded exactly like one `log.read`: limit, maxBytes in stored
 * batch bytes, offset gaps) and written as it is read: the first page is read before the 200, so an
 * error there (OFFSET_OUT_OF_RANGE, NOT_OWNER, ...) still gets its status; each page then goes out
 * as batch frames of ~256 KiB, the next written (and the next page read) only once the socket
 * drained; then the end frame (endOffset = nextOffset, logStartOffset). The log end offset taken
 * with the first page travels in a header, and no record at or above it is sent.
 *
 * The log is not held between pages (a close or handover does not wait for a slow reader): each
 * page is its own `host.read`. A page that fails after the 200 (retention deleted what it was to
 * read, the partition moved or closed, a corrupt batch) ends the answer early with a correct end
 * frame: every record below its nextOffset was sent, and the next fetch from there gets the error
 * with its status. Answers the number of records sent.
 */
export async function fetchRecords(
  host: PartitionHost,
  partitionId: string,
  query: FetchQuery,
  res: ServerResponse,
  logger: Pick<Logger, "warn">,
): Promise<number> {
  const first = await host.read(partitionId, async (log) => {
    // Readers are told the readable end: an append still being made durable is not there yet, nor
    // is an open transaction's data (the last stable offset; the high watermark without one).
    const pager = new FetchPager({ ...query, endOffset: log.lastStableOffset });
    return { pager, logEndOffset: log.lastStableOffset, page: await pager.next(log) };
  });
  const { pager, logEndOffset } = first;
  let { page } = first;
  const closed = once(res, "close").then(() => undefined);
  res.writeHead(200, {
    "content-type": STREAM_CONTENT_TYPE,
    [FETCH_LOG_END_HEADER]: String(logEndOffset),
  });
  let written = 0;
  for (;;) {
    const { records } = page;
    for (let from = 0; from < records.length; ) {
      let to = from;
      for (let bytes = 0; to < records.length && bytes < FETCH_FRAME_BYTES; to++) {
        const r = records[to]!;
        bytes += 32 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
      }
      if (!res.write(encodeRecordFrames(records.slice(from, to)))) {
        await Promise.race([once(res, "drain"), closed]);
      }
      // The reader went away: nothing left to tell it.
      if (res.destroyed) return written + to;
      from = to;
    }
    written += records.length;
    if (page.done) break;
    try {
      page = await host.read(partitionId, (log) => pager.next(log));
    } catch (error) {
      // The reader gets a correct, shorter answer; the cause (often retention or a handover, but it
      // may be a corrupt batch or a bug) would otherwise be seen by nobody.
      logger.warn({ err: error, partitionId, nextOffset: pager.nextOffset }, "fetch ended early");
      break;
    }
  }
  res.end(encodeEndFrame(pager.nextOffset, pager.logStartOffset));
  return written;
}

export function listOffsets(
  host: PartitionHost,
  partitionId: string,
  query: { timestamp?: number | undefined },
): Promise<ListOffsetsResponse> {
  return host.read(partitionId, async (log: HostedLog) => {
    // Latest is where a committed read can start: the last stable offset (the high watermark
    // without an open transaction), as Kafka answers a read_committed consumer.
    const answer: ListOffsetsResponse = { earliest: log.logStartOffset, latest: log.lastStableOffset };
    if (query.timestamp !== undefined)
      answer.timestampOffset = (await offsetForTimestamp(log, query.timestamp))?.offset ?? null;
    return answer;
  });
}

/** What the segment listing needs to know about the cleaner beyond the log itself. */
export interface CleanerView {
  health: CleanerHealthBook;
  lastCleanAt: ReadonlyMap<string, number>;
  /** Enqueues (or, without Redis, runs) a pass now for a partition held at `epoch`. */
  requestClean(partitionId: string, epoch: number): Promise<void>;
}

export function listSegments(
  host: PartitionHost,
  cleaner: CleanerView,
  partitionId: string,
): Promise<SegmentsResponse> {
  return host.read(partitionId, async (log) => {
    const stats = log.config.cleanupPolicy.compact ? log.cleanableStats() : null;
    const segments = (await log.segments()).map((segment) => {
      const state: SegmentState = segment.active
        ? "active"
        : stats && segment.lastOffset < stats.firstDirtyOffset
          ? "clean"
          : "dirty";
      return { ...segment, state };
    });
    return {
      logStartOffset: log.logStartOffset,
      logEndOffset: log.logEndOffset,
      lastStableOffset: log.lastStableOffset,
      openTransactions: log
        .openTransactions()
        .map(({ producerId, producerEpoch, firstOffset }) => ({ producerId, producerEpoch, firstOffset })),
      segments,
      cleaner: stats && cleanerState(cleaner, partitionId, stats, log.nextCleanDueAt()),
    };
  });
}

function cleanerState(
  cleaner: CleanerView,
  partitionId: string,
  stats: CleanableStats,
  nextCleanDueAt: number | null,
): CleanerState {
  const held = cleaner.health.state(partitionId);
  return {
    dirtyRatio: stats.dirtyRatio,
    cleanable: stats.cleanable,
    firstDirtyOffset: stats.firstDirtyOffset,
    firstUncleanableOffset: stats.firstUncleanableOffset,
    maxCompactionDelayMs: stats.maxCompactionDelayMs,
    nextCleanDueAt,
    lastCleanAt: cleaner.lastCleanAt.get(partitionId) ?? null,
    uncleanable: held && {
      error: held.error,
      failures: held.failures,
      held: held.held,
      retryAt: held.retryAtMs,
    },
  };
}

export async function requestClean(
  host: PartitionHost,
  cleaner: CleanerView,
  partitionId: string,
): Promise<{ accepted: true }> {
  const epoch = await host.read(partitionId, async () => host.slot(partitionId)!.epoch);
  await cleaner.requestClean(partitionId, epoch);
  return { accepted: true };
}
