import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { crc32c } from "@node-rs/crc32";
import { ABORTED_TXN_BYTES, type AbortedTxn, readAbortedTxn, writeAbortedTxn } from "./aborted-txn-index";
import { writeFileAtomically } from "./checkpoint-file";
import { PRODUCER_BATCHES_RETAINED, type ProducerBatch, type ProducerEntry } from "./producer-state";

// The producer-state snapshot beside the segments, as Kafka's `<offset>.snapshot`: the state as of
// a log end offset, written at segment roll and at close (temp file, fsync, rename, fsync of the
// directory), so recovery replays only the log after it. Unlike Kafka's, it keeps all five
// batches of each producer, so a retry after a restart is still recognised among five.
//
// Layout, big-endian:
//   magic "LWPS" | version u16 (2) | crc32c u32 over the bytes after it | offset i64 | producers u32
//   per producer: producerId i64 | producerEpoch i16 | coordinatorEpoch i32 |
//     currentTxnFirstOffset i64 (-1: none open) | lastTimestampMs i64 | batches u8 (0…5)
//     per batch: firstSeq i32 | lastSeq i32 | baseOffset i64 | lastOffset i64 | timestampMs i64
//   aborted transactions u32, per one: producerId i64 | firstOffset i64 | lastOffset i64 |
//     lastStableOffset i64 (the aborted-transaction index below the snapshot's offset: the snapshot
//     travels with the segment ending there to object storage, so a log rebuilt from it still
//     knows what was aborted in segments it never replays)
// Version 1 (before transactions: no coordinator epoch, open transaction or timestamp, 1…5
// batches) is still read: its producers have no open transaction.

const MAGIC = "LWPS";
const VERSION = 2;
const HEADER_BYTES = 4 + 2 + 4 + 8 + 4;
const CRC_START = 10;
const ENTRY_V1_BYTES = 8 + 2 + 1;
const ENTRY_BYTES = 8 + 2 + 4 + 8 + 8 + 1;
const BATCH_BYTES = 4 + 4 + 8 + 8 + 8;
const SNAPSHOT_FILE = /^(\d{20})\.snapshot$/;
/** Older snapshots are kept this many deep: one to fall back on if the newest is unreadable. */
export const SNAPSHOTS_KEPT = 2;

export interface ProducerSnapshot {
  /** The log end offset the state reflects: recovery replays batches from here on. */
  offset: number;
  entries: ProducerEntry[];
  /** The aborted transactions whose markers lie below `offset` (none in a version 1 file). */
  aborted?: AbortedTxn[];
}

export function snapshotFileName(offset: number): string {
  return `${String(offset).padStart(20, "0")}.snapshot`;
}

/** The offsets of the snapshot files in `dir`, ascending. */
export function listSnapshotOffsets(dir: string): number[] {
  const offsets: number[] = [];
  for (const name of fs.readdirSync(dir)) {
    const match = SNAPSHOT_FILE.exec(name);
    if (match) offsets.push(Number(match[1]));
  }
  return offsets.sort((a, b) => a - b);
}

export function encodeProducerSnapshot(snapshot: ProducerSnapshot): Buffer {
  let size = HEADER_BYTES;
  for (const entry of snapshot.entries) size += ENTRY_BYTES + entry.batches.length * BATCH_BYTES;
  const aborted = snapshot.aborted ?? [];
  size += 4 + aborted.length * ABORTED_TXN_BYTES;
  const buf = Buffer.alloc(size);
  buf.write(MAGIC, 0, "latin1");
  buf.writeUInt16BE(VERSION, 4);
  buf.writeBigInt64BE(BigInt(snapshot.offset), 10);
  buf.writeUInt32BE(snapshot.entries.length, 18);
  let at = HEADER_BYTES;
  for (const entry of snapshot.entries) {
    assert(entry.batches.length <= PRODUCER_BATCHES_RETAINED);
    buf.writeBigInt64BE(BigInt(entry.producerId), at);
    buf.writeInt16BE(entry.producerEpoch, at + 8);
    buf.writeInt32BE(entry.coordinatorEpoch, at + 10);
    buf.writeBigInt64BE(BigInt(entry.currentTxnFirstOffset ?? -1), at + 14);
    buf.writeBigInt64BE(BigInt(entry.lastTimestampMs), at + 22);
    buf.writeUInt8(entry.batches.length, at + 30);
    at += ENTRY_BYTES;
    for (const batch of entry.batches) at = writeBatch(buf, at, batch);
  }
  buf.writeUInt32BE(aborted.length, at);
  at += 4;
  for (const txn of aborted) at = writeAbortedTxn(buf, at, txn);
  assert(at === size);
  buf.writeUInt32BE(crc32c(buf.subarray(CRC_START)), 6);
  return buf;
}

function writeBatch(buf: Buffer, at: number, batch: ProducerBatch): number {
  buf.writeInt32BE(batch.firstSeq, at);
  buf.writeInt32BE(batch.lastSeq, at + 4);
  buf.writeBigInt64BE(BigInt(batch.baseOffset), at + 8);
  buf.writeBigInt64BE(BigInt(batch.lastOffset), at + 16);
  buf.writeBigInt64BE(BigInt(batch.timestampMs), at + 24);
  return at + BATCH_BYTES;
}

/** The snapshot in `buf`, or why it is unusable (torn, corrupt, another version). */
export function decodeProducerSnapshot(buf: Buffer): ProducerSnapshot | string {
  if (buf.length < HEADER_BYTES || buf.toString("latin1", 0, 4) !== MAGIC) return "not a snapshot";
  const version = buf.readUInt16BE(4);
  if (version !== VERSION && version !== 1) return `unknown version ${version}`;
  if (crc32c(buf.subarray(CRC_START)) !== buf.readUInt32BE(6)) return "CRC-32C mismatch";
  const offset = Number(buf.readBigInt64BE(10));
  const count = buf.readUInt32BE(18);
  const entryBytes = version === 1 ? ENTRY_V1_BYTES : ENTRY_BYTES;
  const entries: ProducerEntry[] = [];
  let at = HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (at + entryBytes > buf.length) return "truncated";
    const producerId = Number(buf.readBigInt64BE(at));
    const producerEpoch = buf.readInt16BE(at + 8);
    const v2 = version !== 1;
    const coordinatorEpoch = v2 ? buf.readInt32BE(at + 10) : -1;
    const txnFirst = v2 ? Number(buf.readBigInt64BE(at + 14)) : -1;
    const lastTimestamp = v2 ? Number(buf.readBigInt64BE(at + 22)) : null;
    const batchCount = buf.readUInt8(at + entryBytes - 1);
    at += entryBytes;
    if (batchCount > PRODUCER_BATCHES_RETAINED || (!v2 && batchCount === 0)) {
      return `bad batch count ${batchCount}`;
    }
    if (at + batchCount * BATCH_BYTES > buf.length) return "truncated";
    const batches: ProducerBatch[] = [];
    for (let b = 0; b < batchCount; b++, at += BATCH_BYTES) batches.push(readBatch(buf, at));
    entries.push({
      producerId,
      producerEpoch,
      batches,
      coordinatorEpoch,
      currentTxnFirstOffset: txnFirst < 0 ? null : txnFirst,
      lastTimestampMs: lastTimestamp ?? batches.at(-1)!.timestampMs,
    });
  }
  if (version === 1) return at === buf.length ? { offset, entries } : "trailing bytes";
  if (at + 4 > buf.length) return "truncated";
  const abortedCount = buf.readUInt32BE(at);
  at += 4;
  if (at + abortedCount * ABORTED_TXN_BYTES !== buf.length) return "wrong aborted-transaction count";
  const aborted: AbortedTxn[] = [];
  for (; at < buf.length; at += ABORTED_TXN_BYTES) aborted.push(readAbortedTxn(buf, at));
  return { offset, entries, aborted };
}

function readBatch(buf: Buffer, at: number): ProducerBatch {
  return {
    firstSeq: buf.readInt32BE(at),
    lastSeq: buf.readInt32BE(at + 4),
    baseOffset: Number(buf.readBigInt64BE(at + 8)),
    lastOffset: Number(buf.readBigInt64BE(at + 16)),
    timestampMs: Number(buf.readBigInt64BE(at + 24)),
  };
}

/** Writes the snapshot crash-safely, then drops all but the newest `SNAPSHOTS_KEPT`. */
export function writeProducerSnapshot(dir: string, snapshot: ProducerSnapshot): void {
  const bytes = encodeProducerSnapshot(snapshot);
  // Pair assertion: what is written must read back as what was meant.
  assert.deepStrictEqual(decodeProducerSnapshot(bytes), { ...snapshot, aborted: snapshot.aborted ?? [] });
  writeFileAtomically(dir, snapshotFileName(snapshot.offset), bytes);
  const offsets = listSnapshotOffsets(dir);
  for (const offset of offsets.slice(0, Math.max(0, offsets.length - SNAPSHOTS_KEPT))) {
    deleteSnapshot(dir, offset);
  }
}

/** The snapshot at `offset`, or the reason it cannot be used. */
export function readProducerSnapshot(dir: string, offset: number): ProducerSnapshot | string {
  const snapshot = decodeProducerSnapshot(fs.readFileSync(path.join(dir, snapshotFileName(offset))));
  if (typeof snapshot !== "string" && snapshot.offset !== offset) {
    return `names offset ${snapshot.offset}, its file ${offset}`;
  }
  return snapshot;
}

/** The snapshot file's bytes as written, or null when there is none at `offset`. */
export function readProducerSnapshotBytes(dir: string, offset: number): Buffer | null {
  try {
    return fs.readFileSync(path.join(dir, snapshotFileName(offset)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

export function deleteSnapshot(dir: string, offset: number): void {
  fs.rmSync(path.join(dir, snapshotFileName(offset)), { force: true });
}
