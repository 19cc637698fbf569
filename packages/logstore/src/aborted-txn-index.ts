import fs from "node:fs";
import path from "node:path";
import { writeFileAtomically } from "./checkpoint-file";

// The aborted-transaction index, Kafka's `.txnindex`: one entry per ABORT marker, kept beside the
// segment holding the marker (`<base>.aborted-txns`; not `.txnindex`, which the cleaner's swap
// recovery would take for a segment file and delete with the segment it names), so a read_committed Fetch can name the aborted
// transactions overlapping what it returns without scanning the log. Entries are ordered by the
// marker's offset; `lastStableOffset` (the LSO right after the abort) lets a lookup stop early, as
// Kafka's collectAbortedTransactions does: once an entry's LSO reaches the read's upper bound, no
// later entry's transaction can start below it.
//
// Files are written whole and atomically (temp, fsync, rename, fsync of the directory) when an
// abort is recorded: aborts are rare, and a whole-file write leaves nothing torn to repair. On open
// every `.aborted-txns` file in the directory is read, whatever segment it was named for (a cleaner swap
// merges segments and a crash may leave the older names), entries are assigned to the segment now
// holding their marker, and those at or past the producer-state replay start are dropped and
// re-derived from the log (producer-state-recovery.ts): the index is rebuilt where it may be stale.
//
// File layout, big-endian: magic "LWTX" | version u16 (1) | entries u32, then per entry
//   producerId i64 | firstOffset i64 | lastOffset i64 | lastStableOffset i64.

/** One aborted transaction: its producer, first data offset, marker offset and the LSO after it. */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

/** What a read_committed Fetch returns per aborted transaction (Kafka's AbortedTransaction). */
export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

const MAGIC = "LWTX";
const VERSION = 1;
const HEADER_BYTES = 4 + 2 + 4;
const TXN_INDEX_FILE = /^(\d{20})\.aborted-txns$/;

export function txnIndexFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, "0")}.aborted-txns`;
}

/** Bytes of one entry, as the index file and the producer-state snapshot store it. */
export const ABORTED_TXN_BYTES = 32;

/** Writes `entry` at `at` (four big-endian int64s); returns where the next goes. */
export function writeAbortedTxn(buf: Buffer, at: number, entry: AbortedTxn): number {
  buf.writeBigInt64BE(BigInt(entry.producerId), at);
  buf.writeBigInt64BE(BigInt(entry.firstOffset), at + 8);
  buf.writeBigInt64BE(BigInt(entry.lastOffset), at + 16);
  buf.writeBigInt64BE(BigInt(entry.lastStableOffset), at + 24);
  return at + ABORTED_TXN_BYTES;
}

export function readAbortedTxn(buf: Buffer, at: number): AbortedTxn {
  return {
    producerId: Number(buf.readBigInt64BE(at)),
    firstOffset: Number(buf.readBigInt64BE(at + 8)),
    lastOffset: Number(buf.readBigInt64BE(at + 16)),
    lastStableOffset: Number(buf.readBigInt64BE(at + 24)),
  };
}

export function encodeTxnIndex(entries: readonly AbortedTxn[]): Buffer {
  const buf = Buffer.alloc(HEADER_BYTES + entries.length * ABORTED_TXN_BYTES);
  buf.write(MAGIC, 0, "latin1");
  buf.writeUInt16BE(VERSION, 4);
  buf.writeUInt32BE(entries.length, 6);
  let at = HEADER_BYTES;
  for (const entry of entries) at = writeAbortedTxn(buf, at, entry);
  return buf;
}

/** The entries in `buf`, or why it is unusable. */
export function decodeTxnIndex(buf: Buffer): AbortedTxn[] | string {
  if (buf.length < HEADER_BYTES || buf.toString("latin1", 0, 4) !== MAGIC) return "not a txn index";
  if (buf.readUInt16BE(4) !== VERSION) return `unknown version ${buf.readUInt16BE(4)}`;
  const count = buf.readUInt32BE(6);
  if (buf.length !== HEADER_BYTES + count * ABORTED_TXN_BYTES) return "wrong length";
  const entries: AbortedTxn[] = [];
  for (let at = HEADER_BYTES; at < buf.length; at += ABORTED_TXN_BYTES) entries.push(readAbortedTxn(buf, at));
  return entries;
}

/** The log's aborted transactions, in marker order, with their per-segment files. */
export class AbortedTxnIndex {
  private entries: AbortedTxn[] = [];

  constructor(readonly dir: string) {}

  get size(): number {
    return this.entries.length;
  }

  all(): readonly AbortedTxn[] {
    return this.entries;
  }

  /**
   * Loads every `.aborted-txns` file in the directory (unreadable ones are dropped: the entries they
   * held at or past the replay start are re-derived; an older one lost is a limit of the index,
   * never of the data, which read_uncommitted still serves). Entries below `logStartOffset` go.
   */
  load(logStartOffset: number): void {
    const seen = new Map<number, AbortedTxn>();
    for (const name of fs.readdirSync(this.dir)) {
      if (!TXN_INDEX_FILE.test(name)) continue;
      const decoded = decodeTxnIndex(fs.readFileSync(path.join(this.dir, name)));
      if (typeof decoded === "string") continue;
      for (const entry of decoded) if (entry.lastOffset >= logStartOffset) seen.set(entry.lastOffset, entry);
    }
    this.entries = [...seen.values()].sort((a, b) => a.lastOffset - b.lastOffset);
  }

  /** Adds `entries` not already known (a snapshot's, carried from object storage). */
  merge(entries: readonly AbortedTxn[]): void {
    if (entries.length === 0) return;
    const byMarker = new Map(this.entries.map((entry) => [entry.lastOffset, entry]));
    for (const entry of entries) if (!byMarker.has(entry.lastOffset)) byMarker.set(entry.lastOffset, entry);
    this.entries = [...byMarker.values()].sort((a, b) => a.lastOffset - b.lastOffset);
  }

  /** Drops the entries whose marker is at or after `offset` (they are about to be replayed). */
  truncateFrom(offset: number): void {
    this.entries = this.entries.filter((entry) => entry.lastOffset < offset);
  }

  /** Drops the entries whose marker is below `offset` (their segments are gone). */
  removeBelow(offset: number): void {
    if (this.entries[0] !== undefined && this.entries[0].lastOffset < offset) {
      this.entries = this.entries.filter((entry) => entry.lastOffset >= offset);
    }
  }

  /** Records an abort (its marker after every entry so far). */
  add(entry: AbortedTxn): void {
    const last = this.entries.at(-1);
    if (last !== undefined && entry.lastOffset <= last.lastOffset) {
      throw new Error(`aborted transaction at ${entry.lastOffset} is not after ${last.lastOffset}`);
    }
    this.entries.push(entry);
  }

  /**
   * The aborted transactions whose data may lie in [from, upper): marker at or after `from` and
   * first offset below `upper`. Stops after the first entry whose LSO reaches `upper` (see above).
   */
  collect(from: number, upper: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.entries[mid]!.lastOffset < from) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.firstOffset < upper) out.push(entry);
      if (entry.lastStableOffset >= upper) break;
    }
    return out;
  }

  /** The entries whose marker lies in [baseOffset, nextOffset): one segment's file. */
  inRange(baseOffset: number, nextOffset: number): AbortedTxn[] {
    return this.entries.filter((entry) => entry.lastOffset >= baseOffset && entry.lastOffset < nextOffset);
  }

  /**
   * Rewrites the files so that each of `segments` with entries has exactly its own, and no other
   * file is left: after open, a cleaner swap or retention. Files already right are not rewritten.
   */
  writeFiles(segments: readonly { baseOffset: number; nextOffset: number }[]): void {
    const wanted = new Map<string, AbortedTxn[]>();
    for (const segment of segments) {
      const entries = this.inRange(segment.baseOffset, segment.nextOffset);
      if (entries.length > 0) wanted.set(txnIndexFileName(segment.baseOffset), entries);
    }
    for (const [name, entries] of wanted) {
      const bytes = encodeTxnIndex(entries);
      const file = path.join(this.dir, name);
      if (fs.existsSync(file) && fs.readFileSync(file).equals(bytes)) continue;
      writeFileAtomically(this.dir, name, bytes);
    }
    for (const name of fs.readdirSync(this.dir)) {
      // Removed after the new files are in place: a crash between leaves extra entries (unioned
      // on open), never missing ones.
      if (TXN_INDEX_FILE.test(name) && !wanted.has(name))
        fs.rmSync(path.join(this.dir, name), { force: true });
    }
  }

  /** Writes one segment's file (the active segment's, after an abort). */
  writeSegmentFile(baseOffset: number, nextOffset: number): void {
    writeFileAtomically(
      this.dir,
      txnIndexFileName(baseOffset),
      encodeTxnIndex(this.inRange(baseOffset, nextOffset)),
    );
  }

  /** The bytes of the file for the segment at `baseOffset`, or null when it has none (for a remote tier). */
  fileBytes(baseOffset: number): Buffer | null {
    try {
      return fs.readFileSync(path.join(this.dir, txnIndexFileName(baseOffset)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }
}
