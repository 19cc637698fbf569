import { DataPlaneError } from "@lastword/dataplane";
import { type AbortedTxn, decodeBatch, type LogRecord } from "@lastword/logstore";
import {
  batchField,
  CompressionError,
  inflateBatch,
  isControlBatch,
  isTransactionalBatch,
  LOG_OVERHEAD_BYTES,
  OFF_LENGTH,
  OFF_PRODUCER_ID,
  readInt32,
  readInt64,
} from "@lastword/record-batch";
import type { HostedLog } from "../hosting/hosted-log";

/**
 * Stored batch bytes a fetch reads per page. A fetch holds one page at a time (its buffer, the
 * records decoded from it and the frames encoded from those), or one batch when a batch is larger.
 */
export const FETCH_PAGE_BYTES = 256 << 10;

/**
 * The most one stored batch is inflated to when read: the default maxBatchInflatedBytes quota, so
 * every batch a tenant could produce under it reads. A larger one (stored before that quota held) is
 * refused with RECORD_TOO_LARGE, never inflated whole; Kafka consumers still read it as stored.
 */
export const READ_INFLATE_MAX_BYTES = 16 << 20;

/** The slice of the log a fetch reads through: whole stored batches, so maxBytes counts what Kafka counts. */
export type BatchReadingLog = Pick<HostedLog, "logStartOffset" | "readBatches">;

export interface FetchBounds {
  offset: number;
  /** Records. */
  limit: number;
  /**
   * Batch bytes as they will be sent, whole batches, at least one batch with a record in it (the log
   * store's `read` rule): a compressed batch counts what it inflates to, so a few stored KiB that
   * inflate to many MiB cost the read what they cost to send.
   */
  maxBytes: number;
  /**
   * No record at or above this is served: the log end offset announced before the first byte (the
   * last stable offset: a REST fetch reads committed records only).
   */
  endOffset: number;
  /** Stored bytes per page (tests make it small); FETCH_PAGE_BYTES by default. */
  pageBytes?: number;
}

export interface FetchPage {
  /** At least one unless `done`; keys and values are views of the pager's buffer, valid until the next page. */
  records: LogRecord[];
  /** A bound was reached or the log (up to `endOffset`) is exhausted: no further page. */
  done: boolean;
}

/**
 * Reads one fetch page by page, with the same answer as one `log.read(offset, { maxRecords: limit,
 * maxBytes })` over an unchanging log: a page asks for at most what the byte budget still allows,
 * and the log store serves the first batch of a page whatever its size, so that batch alone is
 * checked here against the budget (once a record was served; before that it is served, as `read`
 * serves at least one record). Records below the offset read from (a batch starts before it, or
 * compaction left a batch without records at or above it) are skipped as `read` skips them.
 * Each page reads the log afresh, so a segment swapped or deleted between pages is never touched:
 * the next page reads what the log holds then, or fails (e.g. OFFSET_OUT_OF_RANGE once retention
 * removed it), and the caller ends the answer at `nextOffset`.
 */
export class FetchPager {
  readonly #bounds: FetchBounds;
  /** Reused for every page: what a page decoded is written out (copied into frames) before the next read. */
  readonly #into: Buffer;
  /** Where the next page reads from: one past the last batch read. */
  #from: number;
  #sent = 0;
  #bytes = 0;
  #lastOffset = -1;
  #done = false;
  #logStartOffset = 0;

  constructor(bounds: FetchBounds) {
    this.#bounds = bounds;
    this.#from = bounds.offset;
    this.#into = Buffer.allocUnsafe(bounds.pageBytes ?? FETCH_PAGE_BYTES);
  }

  /** Records handed out so far. */
  get sent(): number {
    return this.#sent;
  }

  /** The log start offset the last page saw. */
  get logStartOffset(): number {
    return this.#logStartOffset;
  }

  /**
   * One past the last record handed out (or marker or aborted batch read through); with none, the
   * offset asked for (at least the log start).
   */
  get nextOffset(): number {
    return this.#lastOffset >= 0 ? this.#lastOffset + 1 : Math.max(this.#bounds.offset, this.#logStartOffset);
  }

  /** The next page with records (pages of batches without any are read through), or the last, empty one. */
  async next(log: BatchReadingLog): Promise<FetchPage> {
    const records: LogRecord[] = [];
    const { limit, maxBytes, endOffset } = this.#bounds;
    while (!this.#done && records.length === 0) {
      this.#logStartOffset = log.logStartOffset;
      const budget = Math.min(this.#into.length, Math.max(maxBytes - this.#bytes, 1));
      // read_committed: markers and aborted transactions' batches are read through, never sent.
      const page = await log.readBatches(this.#from, {
        maxBytes: budget,
        into: this.#into,
        isolation: "read_committed",
      });
      if (page.bytes.length === 0) break;
      const aborted = page.abortedTransactions ?? [];
      const minOffset = this.#from;
      for (let pos = 0; pos < page.bytes.length && !this.#done; ) {
        if (batchField.baseOffset(page.bytes, pos) >= endOffset) {
          this.#done = true;
          break;
        }
        const at = pos;
        pos += readInt32(page.bytes, pos + OFF_LENGTH) + LOG_OVERHEAD_BYTES;
        if (notCommittedData(page.bytes, at, aborted)) {
          // Read through: the next fetch starts after it, so a reader at a marker before the end
          // is not answered the same empty page for ever.
          this.#lastOffset = Math.max(this.#lastOffset, batchField.lastOffset(page.bytes, at));
          continue;
        }
        const plain = plainBatch(page.bytes, at);
        if (this.#sent > 0 && this.#bytes + plain.length > maxBytes) {
          this.#done = true;
          break;
        }
        const batch = decodeBatch(plain, 0);
        this.#bytes += plain.length;
        for (const record of batch.records) {
          if (record.offset < minOffset) continue;
          if (record.offset >= endOffset || this.#sent === limit) {
            this.#done = true;
            break;
          }
          records.push(record);
          this.#sent++;
          this.#lastOffset = record.offset;
        }
        if (this.#sent === limit) this.#done = true;
      }
      this.#from = page.nextOffset;
      // Saves a read that could serve nothing (the first page always reads: it checks the offset).
      if (this.#from >= endOffset || (this.#sent > 0 && this.#bytes >= maxBytes)) this.#done = true;
    }
    if (records.length === 0) this.#done = true;
    return { records, done: this.#done };
  }
}

/** A marker, or a batch of a transaction that was aborted: no record of it is a committed one. */
function notCommittedData(bytes: Buffer, pos: number, aborted: readonly AbortedTxn[]): boolean {
  if (!isTransactionalBatch(bytes, pos)) return false;
  if (isControlBatch(bytes, pos)) return true;
  const producerId = readInt64(bytes, pos + OFF_PRODUCER_ID);
  const offset = batchField.baseOffset(bytes, pos);
  return aborted.some(
    (t) => t.producerId === producerId && t.firstOffset <= offset && offset <= t.lastOffset,
  );
}

/** The stored batch at `pos` plain, inflated no further than READ_INFLATE_MAX_BYTES. */
function plainBatch(bytes: Buffer, pos: number): Buffer {
  try {
    return inflateBatch(bytes, pos, READ_INFLATE_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof CompressionError) || !error.message.includes("decompresses to more than"))
      throw error;
    throw new DataPlaneError(
      "RECORD_TOO_LARGE",
      `the stored batch at offset ${batchField.baseOffset(bytes, pos)} decompresses to more than ${READ_INFLATE_MAX_BYTES} bytes, more than one read inflates; read it over Kafka, where it is sent as stored`,
    );
  }
}
