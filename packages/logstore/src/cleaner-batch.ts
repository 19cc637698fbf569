import {
  BatchRebuild,
  batchCompression,
  batchField,
  CONTROL_FLAG,
  DELETE_HORIZON_FLAG,
  inflateBatch,
  OFF_ATTRIBUTES,
  OFF_BASE_TIMESTAMP,
  OFF_PRODUCER_ID,
  RecordBatchWalk,
  readInt64,
  TRANSACTIONAL_FLAG,
} from "@lastword/record-batch";
import type { CleanerTxns } from "./cleaner-txns";
import type { OffsetMap } from "./offset-map";

// The cleaner's per-batch work, on raw bytes: walk a batch's records without decoding them into
// objects (RecordBatchWalk), decide which survive (Kafka's cleanInto / shouldRetainRecord,
// reference §2.6–2.7), and write the survivors into the output buffer. Unchanged batches are
// copied byte for byte; a changed one is rebuilt by record-batch's BatchRebuild (header kept, the
// survivors' bytes copied, a delete horizon stamped when a tombstone stays).

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
  /** The pass's view of transactions (cleaner-txns.ts): aborted data, markers that may go. */
  txns: CleanerTxns;
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
  /** Records of aborted transactions removed (whatever their keys). */
  abortedRecordsRemoved = 0;
  /** COMMIT/ABORT markers removed (their transactions had no batch left and their horizon passed). */
  markersRemoved = 0;
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

/**
 * Where the records of the batch being filtered that stay start and end, and their stored
 * timestamp deltas, in order (grown on demand): the judging walk notes them so the rebuild need
 * not walk the batch again.
 */
let keptStart = new Int32Array(1024);
let keptEnd = new Int32Array(1024);
let keptDelta = new Float64Array(1024);
const walk = new RecordBatchWalk();
const rebuild = new BatchRebuild();

function ensureKeptRoom(count: number): void {
  if (count <= keptStart.length) return;
  const size = Math.max(count, keptStart.length * 2);
  keptStart = new Int32Array(size);
  keptEnd = new Int32Array(size);
  keptDelta = new Float64Array(size);
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
 * Filters the batch at `src[pos]` (validated, plain v2: `filterCompressedBatch` takes compressed
 * ones) into `out[outPos]`, which must have `rebuiltBatchBound` bytes free. Returns a shared result
 * object (valid until the next call).
 */
export function filterBatch(
  src: Buffer,
  pos: number,
  out: Buffer,
  outPos: number,
  rule: RetainRule,
  counters: FilterCounters,
): FilteredBatch {
  const size = batchField.sizeBytes(src, pos);
  const attributes = src.readInt16BE(pos + OFF_ATTRIBUTES);
  const count = batchField.recordCount(src, pos);
  if ((attributes & CONTROL_FLAG) !== 0) return filterMarker(src, pos, size, out, outPos, rule, counters);
  if ((attributes & TRANSACTIONAL_FLAG) !== 0) {
    const aborted = rule.txns.onDataBatch(
      readInt64(src, pos + OFF_PRODUCER_ID),
      batchField.baseOffset(src, pos),
    );
    // Kafka's cleaner discards an aborted transaction's records whatever their keys.
    if (aborted && count > 0) {
      counters.recordsRead += count;
      counters.recordsRemoved += count;
      counters.abortedRecordsRemoved += count;
      if (!retainsEmpty(src, pos, rule)) return dropBatch();
      return written(rebuild.begin(src, pos, out, outPos).sealEmpty());
    }
  }
  if (count === 0) return retainsEmpty(src, pos, rule) ? copyBatch(src, pos, size, out, outPos) : dropBatch();
  ensureKeptRoom(count);
  const hasHorizon = (attributes & DELETE_HORIZON_FLAG) !== 0;
  const horizon = hasHorizon ? readInt64(src, pos + OFF_BASE_TIMESTAMP) : null;
  const verdict = judgeRecords(src, pos, size, horizon, rule, counters);
  const stamp = verdict.keptTombstone && !hasHorizon;
  if (verdict.kept === count && !stamp) {
    if (horizon !== null && verdict.keptTombstone) counters.noteHorizon(horizon);
    return copyBatch(src, pos, size, out, outPos);
  }
  if (verdict.kept === 0) {
    if (!retainsEmpty(src, pos, rule)) return dropBatch();
    return written(rebuild.begin(src, pos, out, outPos).sealEmpty());
  }
  const batchHorizon = stamp ? rule.newDeleteHorizonMs : horizon;
  if (batchHorizon !== null && verdict.keptTombstone) counters.noteHorizon(batchHorizon);
  rebuild.begin(src, pos, out, outPos);
  if (stamp) rebuild.stampDeleteHorizon(rule.newDeleteHorizonMs);
  for (let k = 0; k < verdict.kept; k++) rebuild.keepRecord(keptStart[k]!, keptEnd[k]!, keptDelta[k]!);
  return written(rebuild.seal());
}

/**
 * A COMMIT/ABORT marker: kept while a batch of its transaction is met in the pass; then stamped
 * with a delete horizon (pass start + delete.retention.ms), and removed by a pass after it — so a
 * consumer reading within delete.retention.ms still sees it, as with tombstones. A marker that
 * ends the round stays (KAFKA-17076's rule for the round's last batch).
 */
function filterMarker(
  src: Buffer,
  pos: number,
  size: number,
  out: Buffer,
  outPos: number,
  rule: RetainRule,
  counters: FilterCounters,
): FilteredBatch {
  const attributes = src.readInt16BE(pos + OFF_ATTRIBUTES);
  const mayGo = rule.txns.onMarker(readInt64(src, pos + OFF_PRODUCER_ID));
  if (!mayGo || batchField.lastOffset(src, pos) + 1 === rule.roundEndOffset) {
    return copyBatch(src, pos, size, out, outPos);
  }
  if ((attributes & DELETE_HORIZON_FLAG) !== 0) {
    const horizon = readInt64(src, pos + OFF_BASE_TIMESTAMP);
    if (rule.nowMs >= horizon) {
      counters.markersRemoved++;
      return dropBatch();
    }
    counters.noteHorizon(horizon);
    return copyBatch(src, pos, size, out, outPos);
  }
  rebuild.begin(src, pos, out, outPos);
  rebuild.stampDeleteHorizon(rule.newDeleteHorizonMs);
  walk.reset(src, pos, pos + size).nextBatch();
  while (walk.nextRecord()) rebuild.keepRecord(walk.recordStart, walk.recordEnd, walk.timestampDelta);
  counters.noteHorizon(rule.newDeleteHorizonMs);
  return written(rebuild.seal());
}

/**
 * Kafka's RETAIN_EMPTY: a batch left without records keeps its header when it ends the round
 * (KAFKA-17076) or is the last batch of a live idempotent producer; otherwise it goes, and so does
 * an empty batch kept by an earlier pass once neither holds any more.
 */
function retainsEmpty(src: Buffer, pos: number, rule: RetainRule): boolean {
  const lastOffset = batchField.lastOffset(src, pos);
  if (lastOffset + 1 === rule.roundEndOffset) return true;
  return rule.producerLastBatchEnds.get(readInt64(src, pos + OFF_PRODUCER_ID)) === lastOffset;
}

function copyBatch(src: Buffer, pos: number, size: number, out: Buffer, outPos: number): FilteredBatch {
  src.copy(out, outPos, pos, pos + size);
  filtered.bytes = size;
  filtered.maxTimestamp = batchField.maxTimestamp(src, pos);
  filtered.changed = false;
  return filtered;
}

function dropBatch(): FilteredBatch {
  filtered.bytes = 0;
  filtered.maxTimestamp = -1;
  filtered.changed = true;
  return filtered;
}

/** The batch `rebuild` just sealed (`bytes` long). */
function written(bytes: number): FilteredBatch {
  filtered.bytes = bytes;
  filtered.maxTimestamp = rebuild.maxTimestamp;
  filtered.changed = true;
  return filtered;
}

const verdictOut = { kept: 0, keptTombstone: false };

/**
 * Walks every record once, applies the retain rule to each and notes where the kept ones are.
 * `horizonMs`: the batch's delete horizon, null if it has none.
 */
function judgeRecords(
  src: Buffer,
  pos: number,
  size: number,
  horizonMs: number | null,
  rule: RetainRule,
  counters: FilterCounters,
): typeof verdictOut {
  const horizon = horizonMs ?? Number.POSITIVE_INFINITY;
  let kept = 0;
  let keptTombstone = false;
  let i = 0;
  walk.reset(src, pos, pos + size).nextBatch();
  for (; walk.nextRecord(); i++) {
    const tombstone = walk.valueStart < 0;
    const verdict = retain(src, walk.offset, walk.keyStart, walk.keyEnd, tombstone, horizon, rule);
    const keep = verdict === KEEP;
    if (verdict === DROP_KEYLESS) counters.keylessRemoved++;
    else if (!keep && tombstone) {
      counters.noteRemovedTombstone({
        key: Buffer.from(src.subarray(walk.keyStart, walk.keyEnd)),
        offset: walk.offset,
        timestamp: walk.timestamp,
        reason: verdict === DROP_EXPIRED ? "delete-horizon" : "superseded",
        horizonMs,
      });
    }
    if (keep) {
      keptStart[kept] = walk.recordStart;
      keptEnd[kept] = walk.recordEnd;
      keptDelta[kept] = walk.timestampDelta;
      kept++;
      if (tombstone) keptTombstone = true;
    }
  }
  counters.recordsRead += i;
  counters.recordsRemoved += i - kept;
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

/** Result of `mapBatch`: whether the map filled, and the last offset put into it (or -1). */
export const mapProgress = { full: false, lastPut: -1 };

/**
 * Puts every keyed record of the batch at `src[pos]` with offset ≥ `fromOffset` into the map,
 * later offsets overwriting earlier ones (tombstones included). Stops before a put when the map
 * is full, possibly mid-batch (Kafka's buildOffsetMapForSegment since KAFKA-3894).
 */
export function mapBatch(
  src: Buffer,
  pos: number,
  map: OffsetMap,
  fromOffset: number,
  txns: CleanerTxns,
): typeof mapProgress {
  // A compressed batch's keys are read from its inflated copy (the map keeps hashes, not views).
  if (batchCompression(src, pos) !== 0) return mapBatch(inflateBatch(src, pos), 0, map, fromOffset, txns);
  mapProgress.full = false;
  mapProgress.lastPut = -1;
  const attributes = src.readInt16BE(pos + OFF_ATTRIBUTES);
  if ((attributes & CONTROL_FLAG) !== 0) return mapProgress;
  // An aborted transaction's records never supersede anything: they are not put in the map.
  if (
    (attributes & TRANSACTIONAL_FLAG) !== 0 &&
    txns.isAborted(readInt64(src, pos + OFF_PRODUCER_ID), batchField.baseOffset(src, pos))
  ) {
    return mapProgress;
  }
  walk.reset(src, pos, pos + batchField.sizeBytes(src, pos)).nextBatch();
  while (walk.nextRecord()) {
    if (walk.keyStart < 0 || walk.offset < fromOffset) continue;
    if (map.full) {
      mapProgress.full = true;
      return mapProgress;
    }
    map.put(src, walk.keyStart, walk.keyEnd, walk.offset);
    mapProgress.lastPut = walk.offset;
  }
  return mapProgress;
}
