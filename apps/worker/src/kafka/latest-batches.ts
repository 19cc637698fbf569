import {
  BatchRebuild,
  batchField,
  inflateBatch,
  RecordBatchWalk,
  readBatchHeader,
} from "@lastword/record-batch";

/** What decides a kept record's fate beyond its offset: the view's end, and the time. */
export interface KeepRule {
  end: number;
  /** Tombstones in a batch whose delete horizon is at or before this are expired (Kafka's cleaner rule). */
  nowMs: number;
}

/** The first index of `offsets` holding a value ≥ `offset` (binary search). */
export function firstAtOrAfter(offsets: Float64Array, offset: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const walk = new RecordBatchWalk();
const rebuild = new BatchRebuild();

/**
 * The batch at `bytes[pos]` with only the records whose offsets are in `keep` (ascending, all
 * within the batch), rebuilt as Kafka's cleaner rebuilds one (record-batch's BatchRebuild: same
 * base offset, last offset delta, timestamps and producer fields, the kept records' bytes as they
 * are), plain (a compressed batch is inflated first). Expired tombstones go too, except the record
 * just below the view's end, which stays so a client that advances by its last record's offset
 * reaches the end. Null when nothing is left.
 */
export function keptBatch(bytes: Buffer, pos: number, keep: Float64Array, rule: KeepRule): Buffer | null {
  const plain = inflateBatch(bytes, pos);
  const size = batchField.sizeBytes(plain, 0);
  const horizon = readBatchHeader(plain, 0).deleteHorizonMs;
  const expired = horizon !== null && rule.nowMs >= horizon;
  const out = Buffer.allocUnsafe(size);
  rebuild.begin(plain, 0, out, 0);
  walk.reset(plain, 0, size).nextBatch();
  let k = 0;
  while (walk.nextRecord()) {
    while (k < keep.length && keep[k]! < walk.offset) k++;
    if (k >= keep.length || keep[k] !== walk.offset) continue;
    if (expired && walk.valueStart < 0 && walk.offset !== rule.end - 1) continue;
    rebuild.keep(walk);
  }
  return rebuild.recordCount === 0 ? null : out.subarray(0, rebuild.seal());
}

/**
 * Whether the batch at `bytes[pos]`, holding `kept` of the view's offsets, goes as stored: every
 * record kept and none an expired tombstone (a batch without a passed horizon has none).
 */
export function passesWhole(bytes: Buffer, pos: number, kept: number, rule: KeepRule): boolean {
  const header = readBatchHeader(bytes, pos);
  if (kept !== header.recordCount) return false;
  return header.deleteHorizonMs === null || rule.nowMs < header.deleteHorizonMs;
}
