import assert from "node:assert/strict";
import {
  batchField,
  CONTROL_FLAG,
  isTransactionalBatch,
  OFF_ATTRIBUTES,
  OFF_BASE_SEQUENCE,
  OFF_LAST_OFFSET_DELTA,
  OFF_PRODUCER_EPOCH,
  OFF_PRODUCER_ID,
  RecordBatchFormatError,
  readInt64,
  readTxnMarker,
} from "@lastword/record-batch";
import type { AbortedTxnIndex } from "./aborted-txn-index";
import {
  type CompletedTxn,
  incrementSequence,
  NO_PRODUCER_ID,
  type ProducerStateManager,
} from "./producer-state";
import {
  deleteSnapshot,
  listSnapshotOffsets,
  readProducerSnapshot,
  writeProducerSnapshot,
} from "./producer-state-snapshot";
import type { Segment } from "./segment";

/** Recovery has to replay a segment that is evicted to a remote tier: fetch it back, then retry. */
export class RemoteSegmentNeeded extends Error {
  constructor(readonly segment: Segment) {
    super(`producer state recovery needs evicted segment ${segment.baseOffset}`);
  }
}

export interface ProducerStateRecovery {
  /** The snapshot the state started from, or null when it was rebuilt from the log start. */
  snapshotOffset: number | null;
  /** Where the replay started: the aborted-transaction index is re-derived from here on. */
  replayedFrom: number;
  /** Idempotent batches replayed from the log after the snapshot. */
  batchesReplayed: number;
  /** Snapshots removed: beyond the log end (a truncated tail) or unreadable. */
  snapshotsDiscarded: number;
}

/**
 * Kafka's loadProducerState on open: drops snapshots past the log end, starts from the newest
 * readable one (or from nothing, at the first segment), replays every idempotent batch after it
 * from the batch headers, and forgets expired producers. Unless the snapshot was already at the log
 * end, one is written there, so the next open (the next owner, after a crash) starts from it.
 */
export function recoverProducerState(
  dir: string,
  segments: readonly Segment[],
  state: ProducerStateManager,
  nowMs: number,
  aborted: AbortedTxnIndex,
): ProducerStateRecovery {
  const logEndOffset = segments.at(-1)!.nextOffset;
  const report: ProducerStateRecovery = {
    snapshotOffset: null,
    replayedFrom: segments[0]!.baseOffset,
    batchesReplayed: 0,
    snapshotsDiscarded: 0,
  };
  let from = segments[0]!.baseOffset;
  const offsets = listSnapshotOffsets(dir);
  for (let i = offsets.length - 1; i >= 0; i--) {
    const offset = offsets[i]!;
    const snapshot = offset > logEndOffset ? "past the log end" : readProducerSnapshot(dir, offset);
    if (typeof snapshot === "string") {
      deleteSnapshot(dir, offset);
      report.snapshotsDiscarded++;
      continue;
    }
    state.load(snapshot.entries);
    aborted.merge(snapshot.aborted ?? []);
    report.snapshotOffset = offset;
    from = Math.max(from, offset);
    break;
  }
  report.replayedFrom = from;
  // The index past the snapshot may be stale (a torn tail, a crash before its file was written):
  // it is derived again from the log, as the producer state is.
  aborted.truncateFrom(from);
  report.batchesReplayed = replayProducerBatches(segments, from, state, (txn) => {
    if (!txn.aborted) return;
    const { producerId, firstOffset, lastOffset } = txn;
    aborted.add({
      producerId,
      firstOffset,
      lastOffset,
      lastStableOffset: state.firstUnstableOffset() ?? lastOffset + 1,
    });
  });
  state.removeExpired(nowMs);
  if (report.snapshotOffset !== logEndOffset) {
    writeProducerSnapshot(dir, {
      offset: logEndOffset,
      entries: state.entries(),
      aborted: [...aborted.all()],
    });
  }
  return report;
}

/**
 * Feeds every idempotent data batch and every transaction marker starting at or after `from` into
 * `state`; returns how many. Each transaction a marker closes goes to `onCompleted`.
 */
export function replayProducerBatches(
  segments: readonly Segment[],
  from: number,
  state: ProducerStateManager,
  onCompleted: (txn: CompletedTxn) => void = () => {},
): number {
  let replayed = 0;
  for (const segment of segments) {
    if (segment.nextOffset <= from) continue;
    if (segment.remote !== null) throw new RemoteSegmentNeeded(segment);
    const cursor = segment.batchHeaders(segment.baseOffset >= from ? 0 : segment.lookup(from));
    while (cursor.next()) {
      if (batchField.baseOffset(cursor.buf, cursor.bufPos) < from) continue;
      // A marker's one record is read too (the cursor gives headers only).
      if ((cursor.buf.readInt16BE(cursor.bufPos + OFF_ATTRIBUTES) & CONTROL_FLAG) !== 0) cursor.body();
      const { buf, bufPos } = cursor;
      if (replayBatch(buf, bufPos, state, onCompleted)) replayed++;
    }
  }
  return replayed;
}

/** One batch header into the state (no checks: the log is the truth). False for non-idempotent ones. */
function replayBatch(
  buf: Buffer,
  pos: number,
  state: ProducerStateManager,
  onCompleted: (txn: CompletedTxn) => void,
): boolean {
  const producerId = readInt64(buf, pos + OFF_PRODUCER_ID);
  if (producerId === NO_PRODUCER_ID) return false;
  assert(producerId >= 0, "a producer id in the log is -1 or non-negative");
  if ((buf.readInt16BE(pos + OFF_ATTRIBUTES) & CONTROL_FLAG) !== 0) {
    return replayMarker(buf, pos, producerId, state, onCompleted);
  }
  const baseSequence = buf.readInt32BE(pos + OFF_BASE_SEQUENCE);
  const lastOffsetDelta = buf.readInt32BE(pos + OFF_LAST_OFFSET_DELTA);
  const baseOffset = batchField.baseOffset(buf, pos);
  // Kafka's lastSequence: base + lastOffsetDelta, which an emptied (cleaned) batch still carries.
  state.update(
    producerId,
    buf.readInt16BE(pos + OFF_PRODUCER_EPOCH),
    {
      firstSeq: baseSequence,
      lastSeq: incrementSequence(baseSequence, lastOffsetDelta),
      baseOffset,
      lastOffset: baseOffset + lastOffsetDelta,
      timestampMs: batchField.maxTimestamp(buf, pos),
    },
    isTransactionalBatch(buf, pos),
  );
  return true;
}

/** A marker batch (whole) into the state: the transaction it closes, if any, to `onCompleted`. */
function replayMarker(
  buf: Buffer,
  pos: number,
  producerId: number,
  state: ProducerStateManager,
  onCompleted: (txn: CompletedTxn) => void,
): boolean {
  let marker: ReturnType<typeof readTxnMarker>;
  try {
    marker = readTxnMarker(buf, pos);
  } catch (error) {
    // Another control type (none is written here): not a transaction's end.
    if (error instanceof RecordBatchFormatError || error instanceof RangeError) return false;
    throw error;
  }
  const completed = state.applyMarker(producerId, buf.readInt16BE(pos + OFF_PRODUCER_EPOCH), {
    ...marker,
    offset: batchField.baseOffset(buf, pos),
    timestampMs: batchField.maxTimestamp(buf, pos),
  });
  if (completed !== null) onCompleted(completed);
  return true;
}
