import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { StreamQuery } from "@lastword/dataplane";
import {
  encodeEndFrame,
  encodeErrorFrame,
  encodeRecordFrames,
  encodeStoredHead,
  STREAM_CONTENT_TYPE,
} from "@lastword/frames";
import { type AbortedTxn, decodeBatch } from "@lastword/logstore";
import {
  batchesBefore,
  batchField,
  inflateBatch,
  inflateBatches,
  isControlBatch,
  isTransactionalBatch,
  OFF_PRODUCER_ID,
  readInt64,
} from "@lastword/record-batch";
import type { HostedLog, LogRecord } from "../hosting/hosted-log";
import { requireKeyIndex } from "../hosting/indexed-log";
import { dataPlaneErrorOf } from "../hosting/log-errors";
import type { PartitionHost } from "../hosting/partition-host";
import { READ_INFLATE_MAX_BYTES } from "./fetch-pager";

/**
 * Bytes per stored frame, at most (a page holds whole batches; one larger than this comes alone):
 * small enough that the worker's next read overlaps the web's and the client's work on this one,
 * and at least a producer's 500 × 1 KiB batch, so pages can be read into reused buffers.
 */
const STORED_PAGE_BYTES = 1 << 20;

/** Page buffers per stream: one being read while the socket still writes the others. */
const PAGE_BUFFERS = 3;

/**
 * The buffers a stream reads its pages into, reused once the socket has written them: a fresh
 * buffer per page made the worker spend a fifth of a stream in garbage collection (external
 * memory growth triggers full collections of a heap that holds the key indexes).
 */
class PageBuffers {
  readonly #free: Buffer[] = [];
  #made = 0;
  #waiting: ((buffer: Buffer) => void) | null = null;
  readonly #closed: Promise<void>;

  constructor(closed: Promise<void>) {
    this.#closed = closed;
  }

  async take(): Promise<Buffer> {
    const free = this.#free.pop();
    if (free) return free;
    if (this.#made < PAGE_BUFFERS) {
      this.#made++;
      return Buffer.allocUnsafeSlow(STORED_PAGE_BYTES);
    }
    // A socket that closed never writes the rest: then the stream ends at its next check anyway.
    return Promise.race([
      new Promise<Buffer>((resolve) => (this.#waiting = resolve)),
      this.#closed.then(() => Buffer.allocUnsafeSlow(STORED_PAGE_BYTES)),
    ]);
  }

  give(buffer: Buffer): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) waiting(buffer);
    else this.#free.push(buffer);
  }
}

/** One stored frame to send: whole batches as the log store read them, and which records they mean. */
interface StoredPage {
  bytes: Buffer;
  from: number;
  /** The offsets to keep (a snapshot's latest records), ascending; null = every one in [from, end). */
  keep: Float64Array | null;
  /** Records in the batches (kept or not). */
  records: number;
  /** The buffer the page was read into, to give back once it is written. */
  buffer: Buffer;
}

/**
 * A stream's pages as stored batches: a replay reads [from, end) batch by batch; a snapshot reads
 * only from each live record's offset on (the frozen index lists them), so the superseded stretches
 * of a dirty log between them are never read, and lists the live offsets each page holds.
 */
async function* storedPages(
  log: HostedLog,
  buffers: PageBuffers,
  from: number,
  end: number,
  live: Float64Array | null,
): AsyncGenerator<StoredPage> {
  let i = 0;
  let next = from;
  for (;;) {
    if (live) {
      if (i >= live.length || live[i]! >= end) return;
      next = Math.max(next, live[i]!);
    }
    // Retention may have moved the start since the last page: read from what is still there.
    const start = Math.max(next, log.logStartOffset);
    if (start >= end) return;
    const buffer = await buffers.take();
    // (A first batch larger than the buffer comes in a fresh one.)
    const read = await log.readBatches(start, { into: buffer });
    const cut = batchesBefore(read.bytes, end);
    if (cut.length === 0) return;
    next = cut.nextOffset;
    let keep: Float64Array | null = null;
    if (live) {
      const first = i;
      while (i < live.length && live[i]! < next) i++;
      keep = live.subarray(first, i);
    } else {
      keep = committedOffsets(read.bytes.subarray(0, cut.length), start, end, (from, to) =>
        log.abortedTransactions(from, to),
      );
    }
    yield { bytes: read.bytes.subarray(0, cut.length), from: start, keep, records: cut.records, buffer };
  }
}

/**
 * A replay page's committed records, when it holds a transaction's batches: the offsets of the
 * records in [from, end) outside markers and aborted transactions (the page's `keep`, so neither
 * is ever sent); null for a page without any (every record is kept, as before).
 */
function committedOffsets(
  bytes: Buffer,
  from: number,
  end: number,
  aborted: (from: number, to: number) => AbortedTxn[],
): Float64Array | null {
  let transactional = false;
  for (let pos = 0; pos < bytes.length; pos += batchField.sizeBytes(bytes, pos)) {
    if (isTransactionalBatch(bytes, pos)) transactional = true;
  }
  if (!transactional) return null;
  const abortedTxns = aborted(from, end);
  const offsets: number[] = [];
  for (let pos = 0; pos < bytes.length; pos += batchField.sizeBytes(bytes, pos)) {
    if (isControlBatch(bytes, pos)) continue;
    if (isTransactionalBatch(bytes, pos)) {
      const producerId = readInt64(bytes, pos + OFF_PRODUCER_ID);
      const base = batchField.baseOffset(bytes, pos);
      if (
        abortedTxns.some((t) => t.producerId === producerId && t.firstOffset <= base && base <= t.lastOffset)
      ) {
        continue;
      }
    }
    for (const record of decodeBatch(inflateBatch(bytes, pos), 0).records) {
      if (record.offset >= from && record.offset < end) offsets.push(record.offset);
    }
  }
  return Float64Array.from(offsets);
}

/**
 * Sends one stored frame (head, then the batches as read: no copy); its buffer goes back once the
 * socket has written it. False when the socket is full. Compressed batches go inflated: stored
 * frames carry plain batches, which every reader (the browser's too) walks without a codec.
 */
function writeStored(res: ServerResponse, page: StoredPage, end: number, buffers: PageBuffers): boolean {
  const bytes = inflateBatches(page.bytes, READ_INFLATE_MAX_BYTES);
  res.cork();
  res.write(encodeStoredHead(bytes.length, page.from, end, page.keep));
  const flowing = res.write(bytes, () => buffers.give(page.buffer));
  res.uncork();
  return flowing;
}

/**
 * A snapshot page worth sending as stored batches: when most of its records are kept. A sparse one
 * (a key's latest amid much superseded data) goes as the picked records, so the stream carries
 * about one record per live key either way.
 */
function denseEnough(page: StoredPage): boolean {
  return page.keep === null || page.keep.length * 2 >= page.records;
}

/**
 * A sparse snapshot page's records: those in [page.from, end) that it keeps, decoded by the log
 * store as fetch decodes its pages (views of the page's buffer: encode them before giving it back).
 */
function keptRecords(page: StoredPage, end: number): LogRecord[] {
  const keep = page.keep ?? [];
  const picked: LogRecord[] = [];
  let k = 0;
  for (let pos = 0; pos < page.bytes.length; ) {
    const { header, records } = decodeBatch(page.bytes, pos);
    pos += header.sizeBytes;
    for (const record of records) {
      if (record.offset < page.from || record.offset >= end) continue;
      while (k < keep.length && keep[k]! < record.offset) k++;
      if (k < keep.length && keep[k] === record.offset) picked.push(record);
    }
  }
  return picked;
}

/**
 * Streams a partition as binary frames: `replay` sends every record in [offset, end), `snapshot`
 * only the latest live record of each key as of `end` (the index frozen at the start). `end` is
 * the readable end (high watermark) when the stream began, sent last so the reader knows what state
 * it now holds.
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
  let log = await host.read(partitionId, async (l) => l);
  // The readable end, not the log end: an append still being made durable cannot be read yet, and
  // an end past what the stream sent would move a tail's position past those records for good. A
  // replay reads committed records: it ends at the last stable offset (an open transaction's
  // records are sent once it commits, to a tail that goes on from here).
  let end = log.lastStableOffset;
  let from = query.offset;
  let live: Float64Array | null = null;
  let release = () => {};
  if (query.mode === "snapshot") {
    const frozen = await requireKeyIndex(log).freeze();
    release = frozen.release;
    end = frozen.endOffset;
    // The index holds appends still waiting for their commit to object storage: the snapshot is
    // the frozen one once they are durable (or fails as their produce does), never served before.
    if (end > log.logEndOffset) {
      try {
        await host.durable(partitionId, end, "object");
      } catch (error) {
        release();
        throw error;
      }
      log = await host.read(partitionId, async (l) => l);
    }
    from = 0;
    // Sorted: an offset the index holds is its key's latest, and not a tombstone.
    live = frozen.index.liveOffsets();
  }
  const closed = once(res, "close").then(() => undefined);
  try {
    res.writeHead(200, { "content-type": STREAM_CONTENT_TYPE });
    const buffers = new PageBuffers(closed);
    for await (const page of storedPages(log, buffers, from, end, live)) {
      let flowing = true;
      if (denseEnough(page)) flowing = writeStored(res, page, end, buffers);
      else {
        const picked = keptRecords(page, end);
        // The frames copy the records out of the page buffer, which can then be read into again.
        const frames = picked.length > 0 ? encodeRecordFrames(picked) : null;
        buffers.give(page.buffer);
        if (frames) flowing = res.write(frames);
      }
      // Node 24 can answer false for a corked write that uncork() then flushes whole; no "drain"
      // follows that one, so the stream waits only while the response still needs one.
      if (!flowing && res.writableNeedDrain) await Promise.race([once(res, "drain"), closed]);
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
