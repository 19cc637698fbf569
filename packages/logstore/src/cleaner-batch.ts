import {
  BATCH_HEADER_BYTES,
  batchCompression,
  CONTROL_FLAG,
  crc32c,
  DELETE_HORIZON_FLAG,
  inflateBatch,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_BASE_TIMESTAMP,
  OFF_CRC,
  OFF_LAST_OFFSET_DELTA,
  OFF_LENGTH,
  OFF_MAX_TIMESTAMP,
  OFF_PRODUCER_ID,
  OFF_RECORD_COUNT,
  readInt64,
  TIMESTAMP_TYPE_FLAG,
  varintSize,
  writeInt64,
  writeVarint,
} from "@lastword/record-batch";
import type { OffsetMap } from "./offset-map";

// The cleaner's per-batch work, on raw bytes: scan a batch's records without decoding them into
// objects, decide which survive (Kafka's cleanInto / shouldRetainRecord, reference §2.6–2.7), and
// write the survivors into the output buffer. Unchanged batches are copied byte for byte; a
// rebuilt batch keeps its base offset, last offset delta, base timestamp and producer fields, and
// its surviving records' bytes, so only the header changes — unless a delete horizon is stamped,
// which moves the base timestamp and so rewrites each record's timestamp delta.

/** A restamped timestamp delta can grow from 1 to 10 varint bytes, and the length prefix by 1. */
const MAX_GROWTH_PER_RECORD = 10;

/** Per-pass inputs of the retain rule. */
export interface RetainRule {
  map: OffsetMap;
  /** Highest offset the map covers; records above it are kept untouched (partial map). */
  latestOffset: number;
  /** Pass start: tombstones whose horizon is ≤ this are removed. */
  nowMs: number;
  /** Horizon stamped on batches that keep a tombstone: pass start + delete.retention.ms. */
  newDeleteHorizonMs: number;
  /** A batch ending right before this offset stays, even emptied (KAFKA-17076). */
  roundEndOffset: number;
  /**
   * Producer id → last offset of that producer's last batch, for live producers: that batch stays,
   * even emptied, so the producer state can be rebuilt from the log (Kafka's RETAIN_EMPTY for the
   * last batch of an active producer). Expired producers are not in it, so their batches go.
   */
  producerLastBatchEnds: ReadonlyMap<number, number>;
}

/** Why a pass dropped a tombstone. */
export type TombstoneRemovalReason = "delete-horizon" | "superseded";

/** A tombstone a pass removed, for the audit trail. */
export interface RemovedTombstone {
  /** A copy: the read buffer it came from is reused. */
  key: Buffer;
  offset: number;
  timestamp: number;
  /** `delete-horizon`: its batch's horizon had passed; `superseded`: a later record has its key. */
  reason: TombstoneRemovalReason;
  /** Its batch's delete horizon (first cleaning pass start + delete.retention.ms), null if never stamped. */
  horizonMs: number | null;
}

/** Counters one pass accumulates over every batch it filters. */
export class FilterCounters {
  recordsRead = 0;
  recordsRemoved = 0;
  tombstonesRemoved = 0;
  /**
   * Tombstones removed by the batches filtered since the last `takeRemovedTombstones()`: the pass
   * takes them once their group is swapped in, so an aborted group's are never reported.
   */
  private pendingTombstones: RemovedTombstone[] = [];
  /** Keyless records dropped (Kafka's invalidMessagesRead). */
  keylessRemoved = 0;
  /** Earliest horizon of a batch that still holds a tombstone after filtering, or null. */
  earliestDeleteHorizonMs: number | null = null;

  noteRemovedTombstone(tombstone: RemovedTombstone): void {
    this.tombstonesRemoved++;
    this.pendingTombstones.push(tombstone);
  }

  takeRemovedTombstones(): RemovedTombstone[] {
    const taken = this.pendingTombstones;
    this.pendingTombstones = [];
    return taken;
  }

  noteHorizon(horizonMs: number): void {
    if (this.earliestDeleteHorizonMs === null || horizonMs < this.earliestDeleteHorizonMs) {
      this.earliestDeleteHorizonMs = horizonMs;
    }
  }
}

/** Scratch space reused across batches: record boundaries and verdicts, grown on demand. */
let recordStart = new Int32Array(1024);
let recordEnd = new Int32Array(1024);
let timestampEnd = new Int32Array(1024);
let recordTimestamp = new Float64Array(1024);
let recordKept = new Uint8Array(1024);
let cursor = 0;

function ensureScratch(count: number): void {
  if (count <= recordStart.length) return;
  const size = Math.max(count, recordStart.length * 2);
  recordStart = new Int32Array(size);
  recordEnd = new Int32Array(size);
  timestampEnd = new Int32Array(size);
  recordTimestamp = new Float64Array(size);
  recordKept = new Uint8Array(size);
}

/** Reads a zigzag varint at `cursor` and advances it. */
function readVarint(buf: Uint8Array): number {
  let byte = buf[cursor++]!;
  let value = byte & 0x7f;
  let scale = 128;
  while (byte >= 128) {
    byte = buf[cursor++]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
  }
  return value % 2 === 1 ? -(value + 1) / 2 : value / 2;
}

/** Most bytes `filterBatch` can write for a source batch of `sizeBytes` holding `count` records. */
export function filteredBatchBound(sizeBytes: number, count: number): number {
  return sizeBytes + count * MAX_GROWTH_PER_RECORD;
}

/** Outcome of one batch, so the segment writer can index it. */
export interface FilteredBatch {
  /** Bytes written at `outPos` (0 when the batch was dropped). */
  bytes: number;
  /** Largest record timestamp the written batch holds (its maxTimestamp field). */
  maxTimestamp: number;
  /** False when the batch was copied byte for byte. */
  changed: boolean;
}

const filtered: FilteredBatch = { bytes: 0, maxTimestamp: -1, changed: false };

/**
 * Filters the batch at `src[pos]` (validated, plain v2: `filterCompressedBatch` takes compressed ones) into `out[outPos]`, which must have
 * `filteredBatchBound` bytes free. Returns a shared result object (valid until the next call).
 */
export function filterBatch(
  src: Buffer,
  pos: number,
  out: Buffer,
  outPos: number,
  rule: RetainRule,
  counters: FilterCounters,
): FilteredBatch {
  const size = src.readInt32BE(pos + OFF_LENGTH) + LOG_OVERHEAD_BYTES;
  const attributes = src.readInt16BE(pos + OFF_ATTRIBUTES);
  const count = src.readInt32BE(pos + OFF_RECORD_COUNT);
  if ((attributes & CONTROL_FLAG) !== 0) return copyBatch(src, pos, size, out, outPos);
  if (count === 0) return retainsEmpty(src, pos, rule) ? copyBatch(src, pos, size, out, outPos) : dropBatch();
  ensureScratch(count);
  const verdict = judgeRecords(src, pos, count, attributes, rule, counters);
  const hasHorizon = (attributes & DELETE_HORIZON_FLAG) !== 0;
  const stamp = verdict.keptTombstone && !hasHorizon;
  if (verdict.kept === count && !stamp) {
    if (hasHorizon && verdict.keptTombstone) counters.noteHorizon(readInt64(src, pos + OFF_BASE_TIMESTAMP));
    return copyBatch(src, pos, size, out, outPos);
  }
  if (verdict.kept === 0)
    return retainsEmpty(src, pos, rule) ? writeEmptyBatch(src, pos, out, outPos) : dropBatch();
  const horizon = stamp
    ? rule.newDeleteHorizonMs
    : hasHorizon
      ? readInt64(src, pos + OFF_BASE_TIMESTAMP)
      : null;
  if (horizon !== null && verdict.keptTombstone) counters.noteHorizon(horizon);
  return rebuildBatch(src, pos, count, attributes, out, outPos, stamp ? rule.newDeleteHorizonMs : null);
}

/**
 * Kafka's RETAIN_EMPTY: a batch left without records keeps its header when it ends the round
 * (KAFKA-17076) or is the last batch of a live idempotent producer; otherwise it goes, and so does
 * an empty batch kept by an earlier pass once neither holds any more.
 */
function retainsEmpty(src: Buffer, pos: number, rule: RetainRule): boolean {
  const lastOffset = readInt64(src, pos) + src.readInt32BE(pos + OFF_LAST_OFFSET_DELTA);
  if (lastOffset + 1 === rule.roundEndOffset) return true;
  return rule.producerLastBatchEnds.get(readInt64(src, pos + OFF_PRODUCER_ID)) === lastOffset;
}

function copyBatch(src: Buffer, pos: number, size: number, out: Buffer, outPos: number): FilteredBatch {
  src.copy(out, outPos, pos, pos + size);
  filtered.bytes = size;
  filtered.maxTimestamp = readInt64(src, pos + OFF_MAX_TIMESTAMP);
  filtered.changed = false;
  return filtered;
}

function dropBatch(): FilteredBatch {
  filtered.bytes = 0;
  filtered.maxTimestamp = -1;
  filtered.changed = true;
  return filtered;
}

const verdictOut = { kept: 0, keptTombstone: false };

/** Scans every record once, fills the scratch arrays and applies the retain rule to each. */
function judgeRecords(
  src: Buffer,
  pos: number,
  count: number,
  attributes: number,
  rule: RetainRule,
  counters: FilterCounters,
): typeof verdictOut {
  const baseOffset = readInt64(src, pos);
  const baseTimestamp = readInt64(src, pos + OFF_BASE_TIMESTAMP);
  const horizon = (attributes & DELETE_HORIZON_FLAG) !== 0 ? baseTimestamp : Number.POSITIVE_INFINITY;
  // LogAppendTime batches carry their one timestamp in the max timestamp field.
  const appendTime = (attributes & TIMESTAMP_TYPE_FLAG) !== 0 ? readInt64(src, pos + OFF_MAX_TIMESTAMP) : -1;
  let kept = 0;
  let keptTombstone = false;
  cursor = pos + BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    recordStart[i] = cursor;
    const length = readVarint(src);
    const end = cursor + length;
    cursor++; // record attributes, unused in v2
    recordTimestamp[i] = baseTimestamp + readVarint(src);
    timestampEnd[i] = cursor;
    const offset = baseOffset + readVarint(src);
    const keyLength = readVarint(src);
    const keyStart = cursor;
    cursor += Math.max(keyLength, 0);
    const tombstone = readVarint(src) < 0;
    const verdict = retain(
      src,
      offset,
      keyLength < 0 ? -1 : keyStart,
      keyStart + keyLength,
      tombstone,
      horizon,
      rule,
    );
    const keep = verdict === KEEP;
    if (verdict === DROP_KEYLESS) counters.keylessRemoved++;
    else if (!keep && tombstone) {
      counters.noteRemovedTombstone({
        key: Buffer.from(src.subarray(keyStart, keyStart + keyLength)),
        offset,
        timestamp: appendTime >= 0 ? appendTime : recordTimestamp[i]!,
        reason: verdict === DROP_EXPIRED ? "delete-horizon" : "superseded",
        horizonMs: Number.isFinite(horizon) ? horizon : null,
      });
    }
    recordEnd[i] = end;
    recordKept[i] = keep ? 1 : 0;
    if (keep) {
      kept++;
      if (tombstone) keptTombstone = true;
    }
    cursor = end;
  }
  counters.recordsRead += count;
  counters.recordsRemoved += count - kept;
  verdictOut.kept = kept;
  verdictOut.keptTombstone = keptTombstone;
  return verdictOut;
}

const KEEP = 0;
const DROP_KEYLESS = 1;
const DROP_SUPERSEDED = 2;
const DROP_EXPIRED = 3;

/** Kafka's shouldRetainRecord, in its order: beyond the map, keyless, superseded, tombstone horizon. */
function retain(
  src: Buffer,
  offset: number,
  keyStart: number,
  keyEnd: number,
  tombstone: boolean,
  horizonMs: number,
  rule: RetainRule,
): number {
  if (offset > rule.latestOffset) return KEEP;
  if (keyStart < 0) return DROP_KEYLESS;
  if (offset < rule.map.get(src, keyStart, keyEnd)) return DROP_SUPERSEDED;
  return tombstone && rule.nowMs >= horizonMs ? DROP_EXPIRED : KEEP;
}

/** Kafka's writeEmptyHeader: the batch's offsets and max timestamp, no records, no horizon. */
function writeEmptyBatch(src: Buffer, pos: number, out: Buffer, outPos: number): FilteredBatch {
  src.copy(out, outPos, pos, pos + BATCH_HEADER_BYTES);
  const maxTimestamp = readInt64(src, pos + OFF_MAX_TIMESTAMP);
  const attributes = src.readInt16BE(pos + OFF_ATTRIBUTES) & ~DELETE_HORIZON_FLAG;
  out.writeInt16BE(attributes, outPos + OFF_ATTRIBUTES);
  writeInt64(out, maxTimestamp, outPos + OFF_BASE_TIMESTAMP);
  out.writeInt32BE(0, outPos + OFF_RECORD_COUNT);
  return sealBatch(out, outPos, BATCH_HEADER_BYTES, maxTimestamp);
}

/** Writes the kept records behind a copy of the source header, then patches the header. */
function rebuildBatch(
  src: Buffer,
  pos: number,
  count: number,
  attributes: number,
  out: Buffer,
  outPos: number,
  stampHorizonMs: number | null,
): FilteredBatch {
  src.copy(out, outPos, pos, pos + BATCH_HEADER_BYTES);
  const appendTime = (attributes & TIMESTAMP_TYPE_FLAG) !== 0;
  let maxTimestamp = appendTime ? readInt64(src, pos + OFF_MAX_TIMESTAMP) : -1;
  let at = outPos + BATCH_HEADER_BYTES;
  let kept = 0;
  for (let i = 0; i < count; i++) {
    if (recordKept[i] === 0) continue;
    kept++;
    const ts = recordTimestamp[i]!;
    if (!appendTime && ts > maxTimestamp) maxTimestamp = ts;
    if (stampHorizonMs === null) {
      at += src.copy(out, at, recordStart[i]!, recordEnd[i]!);
    } else {
      at = restampRecord(src, i, out, at, ts - stampHorizonMs);
    }
  }
  if (stampHorizonMs !== null) {
    out.writeInt16BE(attributes | DELETE_HORIZON_FLAG, outPos + OFF_ATTRIBUTES);
    writeInt64(out, stampHorizonMs, outPos + OFF_BASE_TIMESTAMP);
  }
  out.writeInt32BE(kept, outPos + OFF_RECORD_COUNT);
  return sealBatch(out, outPos, at - outPos, maxTimestamp);
}

/** Re-encodes record `i` with a new timestamp delta; everything after the delta is copied as is. */
function restampRecord(src: Buffer, i: number, out: Buffer, at: number, timestampDelta: number): number {
  cursor = recordStart[i]!;
  const oldLength = readVarint(src);
  const bodyStart = cursor;
  cursor++;
  const oldDeltaStart = cursor;
  readVarint(src);
  const rest = timestampEnd[i]!;
  const length = oldLength - (rest - oldDeltaStart) + varintSize(timestampDelta);
  let w = writeVarint(out, length, at);
  out[w++] = src[bodyStart]!;
  w = writeVarint(out, timestampDelta, w);
  return w + src.copy(out, w, rest, recordEnd[i]!);
}

/** Sets length, max timestamp and CRC-32C (attributes..end) of the batch written at `outPos`. */
function sealBatch(out: Buffer, outPos: number, size: number, maxTimestamp: number): FilteredBatch {
  out.writeInt32BE(size - LOG_OVERHEAD_BYTES, outPos + OFF_LENGTH);
  writeInt64(out, maxTimestamp, outPos + OFF_MAX_TIMESTAMP);
  out.writeUInt32BE(crc32c(out.subarray(outPos + OFF_ATTRIBUTES, outPos + size)), outPos + OFF_CRC);
  filtered.bytes = size;
  filtered.maxTimestamp = maxTimestamp;
  filtered.changed = true;
  return filtered;
}

/** Result of `mapBatch`: whether the map filled, and the last offset put into it (or -1). */
export const mapProgress = { full: false, lastPut: -1 };

/**
 * Puts every keyed record of the batch at `src[pos]` with offset ≥ `fromOffset` into the map,
 * later offsets overwriting earlier ones (tombstones included). Stops before a put when the map
 * is full, possibly mid-batch (Kafka's buildOffsetMapForSegment since KAFKA-3894).
 */
export function mapBatch(src: Buffer, pos: number, map: OffsetMap, fromOffset: number): typeof mapProgress {
  // A compressed batch's keys are read from its inflated copy (the map keeps hashes, not views).
  if (batchCompression(src, pos) !== 0) return mapBatch(inflateBatch(src, pos), 0, map, fromOffset);
  mapProgress.full = false;
  mapProgress.lastPut = -1;
  if ((src.readInt16BE(pos + OFF_ATTRIBUTES) & CONTROL_FLAG) !== 0) return mapProgress;
  const baseOffset = readInt64(src, pos);
  const count = src.readInt32BE(pos + OFF_RECORD_COUNT);
  cursor = pos + BATCH_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    const length = readVarint(src);
    const end = cursor + length;
    cursor++;
    readVarint(src);
    const offset = baseOffset + readVarint(src);
    const keyLength = readVarint(src);
    if (keyLength >= 0 && offset >= fromOffset) {
      if (map.full) {
        mapProgress.full = true;
        return mapProgress;
      }
      map.put(src, cursor, cursor + keyLength, offset);
      mapProgress.lastPut = offset;
    }
    cursor = end;
  }
  return mapProgress;
}
