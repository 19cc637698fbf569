import assert from "node:assert/strict";
import {
  InvalidProducerEpochError,
  InvalidRecordError,
  InvalidTxnStateError,
  OutOfOrderSequenceError,
  TransactionCoordinatorFencedError,
} from "./errors";

// Per-partition producer state, as Kafka's ProducerStateManager keeps it for idempotent producers:
// for each producer id its epoch and its last five batches (first/last sequence, first/last offset,
// timestamp). An append that carries a producer id is checked against it before it is written: a
// batch equal to one of the five is a retry (answered with its first offsets, not written again),
// a gap in the sequence or an older epoch is refused. The state is rebuilt on open from a snapshot
// file plus the log after it (producer-state-snapshot.ts, producer-state-recovery.ts).
//
// Transactions (KIP-98), as Kafka's ProducerStateManager tracks them: a transactional data batch
// opens its producer's transaction at its first offset unless one is open; a COMMIT/ABORT marker
// (written by the coordinator through PartitionLog.appendTxnMarker) closes it. While a transaction
// is open its first offset bounds the last stable offset (LSO); an open transaction's producer is
// never expired.

/** Kafka's NUM_BATCHES_TO_RETAIN: how many batches per producer a duplicate is recognised among. */
export const PRODUCER_BATCHES_RETAINED = 5;
/** Kafka's producer.id.expiration.ms default (and the REST Idempotency-Key's lifetime): 24 h. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 24 * 3600 * 1000;
/** The header value of a batch without a producer (non-idempotent). */
export const NO_PRODUCER_ID = -1;
const INT32_MAX = 2147483647;
const INT16_MAX = 32767;

/** The producer fields an idempotent append carries (the RecordBatch v2 header's). */
export interface ProducerAppend {
  /** ≥ 0, ≤ 2^53 − 1 (the header field is an int64; the store reads it as a JS number). */
  producerId: number;
  /** 0 … 32767; a higher epoch fences the lower ones. */
  producerEpoch: number;
  /** Sequence of the batch's first record, 0 … 2^31 − 1; the last is base + count − 1 (wrapping). */
  baseSequence: number;
}

/** One remembered batch of a producer. */
export interface ProducerBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
  lastOffset: number;
  /** The batch's max timestamp (Kafka's lastTimestamp); expiry counts from the newest. */
  timestampMs: number;
}

/** One producer id's state: its epoch and its last batches, oldest first. */
export interface ProducerEntry {
  producerId: number;
  producerEpoch: number;
  /** Up to five; none for a producer known only by a marker (or a new epoch from a marker). */
  batches: ProducerBatch[];
  /** The coordinator epoch of the last marker for this producer; -1 before any. */
  coordinatorEpoch: number;
  /** First offset of the producer's open transaction, or null when none is open. */
  currentTxnFirstOffset: number | null;
  /** Newest batch or marker timestamp: producer.id.expiration.ms counts from it. */
  lastTimestampMs: number;
}

/** A transaction a marker closed, as the aborted-transaction index and the LSO need it. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  /** The marker's offset. */
  lastOffset: number;
  aborted: boolean;
}

/** What the check of an append decided: write it, or it is a retry of a batch already written. */
export type ProducerVerdict =
  | { kind: "append" }
  | { kind: "duplicate"; baseOffset: number; lastOffset: number };

const APPEND: ProducerVerdict = Object.freeze({ kind: "append" });

/** Kafka's incrementSequence: sequences wrap from 2^31 − 1 to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

/** Refuses producer fields no RecordBatch header could carry (a typed error, not an assertion). */
export function validateProducerAppend(producer: ProducerAppend, recordCount: number): void {
  const { producerId, producerEpoch, baseSequence } = producer;
  if (!Number.isSafeInteger(producerId) || producerId < 0) {
    throw new InvalidRecordError(`producerId ${producerId} must be an integer in [0, 2^53 - 1]`);
  }
  if (!Number.isInteger(producerEpoch) || producerEpoch < 0 || producerEpoch > INT16_MAX) {
    throw new InvalidRecordError(`producerEpoch ${producerEpoch} must be an integer in [0, ${INT16_MAX}]`);
  }
  if (!Number.isInteger(baseSequence) || baseSequence < 0 || baseSequence > INT32_MAX) {
    throw new InvalidRecordError(`baseSequence ${baseSequence} must be an integer in [0, ${INT32_MAX}]`);
  }
  if (recordCount < 1) throw new InvalidRecordError("an idempotent batch needs at least one record");
}

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>();

  constructor(readonly producerIdExpirationMs = DEFAULT_PRODUCER_ID_EXPIRATION_MS) {
    assert(producerIdExpirationMs > 0);
  }

  get size(): number {
    return this.producers.size;
  }

  entry(producerId: number): Readonly<ProducerEntry> | undefined {
    return this.producers.get(producerId);
  }

  /** Every entry, by ascending producer id (snapshots and comparisons want one order). */
  entries(): ProducerEntry[] {
    return [...this.producers.values()].sort((a, b) => a.producerId - b.producerId);
  }

  /**
   * Kafka's analyzeAndValidateProducerState for one batch of `recordCount` records: a duplicate of
   * a remembered batch (same epoch, same sequence range) is answered with that batch's offsets;
   * otherwise the epoch must not be older (INVALID_PRODUCER_EPOCH) and the sequence must follow
   * the last one (OUT_OF_ORDER_SEQUENCE), or start at 0 under a new epoch. An unknown producer id
   * may start at any sequence (its state may have expired or been removed with its segments).
   */
  check(producer: ProducerAppend, recordCount: number, transactional = false): ProducerVerdict {
    const entry = this.producers.get(producer.producerId);
    if (entry === undefined) return APPEND;
    const verdict = this.checkSequence(entry, producer, recordCount);
    // Kafka's ProducerAppendInfo: a producer with an open transaction writes only transactionally.
    if (verdict.kind === "append" && !transactional && entry.currentTxnFirstOffset !== null) {
      throw new InvalidTxnStateError(
        `producer ${producer.producerId} has an open transaction (from offset ${entry.currentTxnFirstOffset}); a non-transactional batch is refused`,
      );
    }
    return verdict;
  }

  private checkSequence(
    entry: ProducerEntry,
    producer: ProducerAppend,
    recordCount: number,
  ): ProducerVerdict {
    const lastSeq = incrementSequence(producer.baseSequence, recordCount - 1);
    if (producer.producerEpoch === entry.producerEpoch) {
      for (const batch of entry.batches) {
        if (batch.firstSeq === producer.baseSequence && batch.lastSeq === lastSeq) {
          return { kind: "duplicate", baseOffset: batch.baseOffset, lastOffset: batch.lastOffset };
        }
      }
    }
    if (producer.producerEpoch < entry.producerEpoch) {
      throw new InvalidProducerEpochError(producer.producerId, producer.producerEpoch, entry.producerEpoch);
    }
    if (producer.producerEpoch > entry.producerEpoch) {
      if (producer.baseSequence !== 0) {
        throw new OutOfOrderSequenceError(
          `producer ${producer.producerId}: a new epoch ${producer.producerEpoch} must start at sequence 0, not ${producer.baseSequence}`,
        );
      }
      return APPEND;
    }
    const last = entry.batches.at(-1);
    // A marker may have started this epoch (no batch yet): its first batch starts anywhere, as
    // Kafka accepts for an entry with no sequence state.
    if (last !== undefined && producer.baseSequence !== incrementSequence(last.lastSeq, 1)) {
      throw new OutOfOrderSequenceError(
        `producer ${producer.producerId} epoch ${producer.producerEpoch}: sequence ${producer.baseSequence} does not follow ${last.lastSeq}`,
      );
    }
    return APPEND;
  }

  /**
   * Records a batch written (by an append that passed `check`, or found in the log on recovery):
   * a newer epoch replaces the producer's batches, the oldest of more than five is forgotten.
   */
  update(producerId: number, producerEpoch: number, batch: ProducerBatch, transactional = false): void {
    assert(batch.lastOffset >= batch.baseOffset, "a producer batch ends at or after its start");
    const entry = this.entryAtEpoch(producerId, producerEpoch);
    entry.lastTimestampMs = batch.timestampMs;
    if (transactional && entry.currentTxnFirstOffset === null) entry.currentTxnFirstOffset = batch.baseOffset;
    const last = entry.batches.at(-1);
    assert(
      last === undefined || batch.baseOffset > last.lastOffset,
      "a producer's batches are in offset order",
    );
    entry.batches.push(batch);
    if (entry.batches.length > PRODUCER_BATCHES_RETAINED) entry.batches.shift();
  }

  /** The producer's entry at `producerEpoch`, made (or reset, on a newer epoch) when needed. */
  private entryAtEpoch(producerId: number, producerEpoch: number): ProducerEntry {
    let entry = this.producers.get(producerId);
    if (entry === undefined) {
      entry = {
        producerId,
        producerEpoch,
        batches: [],
        coordinatorEpoch: -1,
        currentTxnFirstOffset: null,
        lastTimestampMs: -1,
      };
      this.producers.set(producerId, entry);
    } else if (producerEpoch > entry.producerEpoch) {
      // A new epoch starts a new sequence; an open transaction and the coordinator epoch carry
      // over (the marker that ends the transaction comes at the new epoch, as Kafka's does).
      entry.producerEpoch = producerEpoch;
      entry.batches = [];
    }
    return entry;
  }

  /**
   * Kafka's checks for an end-transaction marker: an older producer epoch is fenced
   * (INVALID_PRODUCER_EPOCH), an older coordinator epoch too (TRANSACTION_COORDINATOR_FENCED).
   * An unknown producer passes: its marker is written harmlessly, as Kafka writes it.
   */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number): void {
    const entry = this.producers.get(producerId);
    if (entry === undefined) return;
    if (producerEpoch < entry.producerEpoch) {
      throw new InvalidProducerEpochError(producerId, producerEpoch, entry.producerEpoch);
    }
    if (coordinatorEpoch < entry.coordinatorEpoch) {
      throw new TransactionCoordinatorFencedError(producerId, coordinatorEpoch, entry.coordinatorEpoch);
    }
  }

  /**
   * Records a marker written at `offset` (by appendTxnMarker, or found in the log on recovery):
   * the producer's open transaction, if any, is closed and returned; with none, null (a retried
   * or empty-partition marker, harmless).
   */
  applyMarker(
    producerId: number,
    producerEpoch: number,
    marker: { commit: boolean; coordinatorEpoch: number; offset: number; timestampMs: number },
  ): CompletedTxn | null {
    const entry = this.entryAtEpoch(producerId, producerEpoch);
    entry.coordinatorEpoch = marker.coordinatorEpoch;
    // The coordinator's clock stamps markers: one behind the partition's never ages the producer.
    entry.lastTimestampMs = Math.max(entry.lastTimestampMs, marker.timestampMs);
    const firstOffset = entry.currentTxnFirstOffset;
    if (firstOffset === null) return null;
    entry.currentTxnFirstOffset = null;
    return { producerId, firstOffset, lastOffset: marker.offset, aborted: !marker.commit };
  }

  /** The lowest first offset of an open transaction, or null when none is open. */
  firstUnstableOffset(): number | null {
    let first: number | null = null;
    for (const entry of this.producers.values()) {
      const offset = entry.currentTxnFirstOffset;
      if (offset !== null && (first === null || offset < first)) first = offset;
    }
    return first;
  }

  /** The producers with an open transaction and where each began, by first offset. */
  openTransactions(): { producerId: number; producerEpoch: number; firstOffset: number }[] {
    const open: { producerId: number; producerEpoch: number; firstOffset: number }[] = [];
    for (const entry of this.producers.values()) {
      if (entry.currentTxnFirstOffset !== null) {
        open.push({
          producerId: entry.producerId,
          producerEpoch: entry.producerEpoch,
          firstOffset: entry.currentTxnFirstOffset,
        });
      }
    }
    return open.sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Replaces the whole state with `entries` (a loaded snapshot). */
  load(entries: readonly ProducerEntry[]): void {
    this.producers.clear();
    for (const entry of entries) {
      assert(entry.batches.length <= PRODUCER_BATCHES_RETAINED);
      this.producers.set(entry.producerId, { ...entry, batches: entry.batches.map((b) => ({ ...b })) });
    }
  }

  /**
   * Forgets producers whose newest batch or marker is at least producer.id.expiration.ms old
   * (Kafka's rule); a producer with an open transaction is kept (its transaction bounds the LSO
   * until its marker comes).
   */
  removeExpired(nowMs: number): number {
    let removed = 0;
    for (const [producerId, entry] of this.producers) {
      if (entry.currentTxnFirstOffset !== null) continue;
      if (nowMs - entry.lastTimestampMs >= this.producerIdExpirationMs) {
        this.producers.delete(producerId);
        removed++;
      }
    }
    return removed;
  }

  /**
   * For the cleaner: each producer's last batch, by the offset it ends at. The cleaner keeps that
   * batch (emptied if need be) so the state can be rebuilt from the log, as Kafka's does.
   */
  lastBatchEndOffsets(): Map<number, number> {
    const ends = new Map<number, number>();
    for (const [producerId, entry] of this.producers) {
      const last = entry.batches.at(-1);
      if (last !== undefined) ends.set(producerId, last.lastOffset);
    }
    return ends;
  }
}
