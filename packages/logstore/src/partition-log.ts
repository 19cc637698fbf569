import fs from "node:fs";
import { parseTopicConfig, type TopicConfig } from "@lastword/topic-config";
import { type AbortedTxn, AbortedTxnIndex } from "./aborted-txn-index";
import { LOG_START_OFFSET_CHECKPOINT, RECOVERY_POINT_CHECKPOINT, writeCheckpoint } from "./checkpoint-file";
import type { CleanResult } from "./clean-result";
import { type CleanableStats, LogCleaner, type PurgeOptions, validateDedupeBufferBytes } from "./cleaner";
import { type Clock, systemClock } from "./clock";
import {
  CorruptSegmentError,
  InvalidRecordError,
  InvalidTxnStateError,
  LogClosedError,
  OffsetOutOfRangeError,
  PolicyViolationError,
} from "./errors";
import { GroupCommit } from "./group-commit";
import { invariant } from "./invariant";
import { loadLog, type RecoveryReport } from "./log-loader";
import { type BatchRead, type ReadBounds, readBatches, readRecords } from "./log-reader";
import { Mutex } from "./mutex";
import { type RemoteSegmentEntry, type RemoteSegmentSource, writeRemoteSegments } from "./remote-segments";
import { discard, fetchSegment, install } from "./segment-fetch";
import "./native-crc32c";
// Every codec a stored batch may use, for this process's reads, cleaner passes and appends.
import "@lastword/record-batch/node-codecs";
import {
  type AppendRecord,
  compressBatch,
  EncodeScratch,
  encodeControlBatch,
  encodeRecordBatch,
  isControlBatch,
  isTransactionalBatch,
  type LogRecord,
  OFF_PRODUCER_ID,
  readInt64,
  setBaseOffset,
  TRANSACTIONAL_FLAG,
} from "@lastword/record-batch";
import {
  checkSize as checkBatchSize,
  checkStoredCodec,
  type ValidatedBatch,
  validateBatch,
} from "./batch-validation";
import { fsyncDirectory } from "./fsync-directory";
import {
  DEFAULT_PRODUCER_ID_EXPIRATION_MS,
  incrementSequence,
  type ProducerAppend,
  ProducerStateManager,
  validateProducerAppend,
} from "./producer-state";
import {
  type ProducerStateRecovery,
  RemoteSegmentNeeded,
  recoverProducerState,
} from "./producer-state-recovery";
import { readProducerSnapshotBytes, writeProducerSnapshot } from "./producer-state-snapshot";
import { validateAppendRecords } from "./record-validation";
import { deletableSegments, largestTimestamp, type RetentionReason, retentionRules } from "./retention";
import { drawRollJitterMs, rollReason, timeRollDueAt } from "./roll-policy";
import { Segment, type SegmentLimits, segmentLimits } from "./segment";
import { storedCodec } from "./stored-compression";
import { findOffsetByTimestamp, type TimestampAndOffset } from "./timestamp-search";
import { writeTombstoneCounts } from "./tombstone-counts";

/** `per-append`: every append fsyncs before it resolves. `group-commit`: concurrent appends share fsyncs. */
export type Durability = "per-append" | "group-commit";

export interface PartitionLogOptions {
  dir: string;
  /** Kafka topic-config names, values as strings or numbers; the config in force while open. */
  config?: Readonly<Record<string, unknown>>;
  clock?: Clock;
  /** The cleaner's offset-map budget in bytes (validated and used by the cleaner). */
  dedupeBufferBytes?: number;
  durability?: Durability;
  /** Source of `segment.jitter.ms` draws; tests pin it. */
  random?: () => number;
  /** Kafka's producer.id.expiration.ms: a producer silent this long is forgotten (default 24 h). */
  producerIdExpirationMs?: number;
  /**
   * Called under the log's mutex right before an append writes (or rolls for) its batch, with no
   * event-loop turn between the call and the write; a throw refuses the append and nothing is
   * written. The worker's storage fence check: an append that passed it is on disk before anything
   * else runs, so a new owner's recovery never races an append queued behind an fsync.
   */
  beforeWrite?: () => void;
  /**
   * Where segments evicted with `evictSegment` are fetched back from when a read, a cleaner pass
   * or recovery needs their bytes. A log with evicted segments and no source fails those reads.
   */
  remote?: RemoteSegmentSource;
}

export interface AppendOptions {
  /**
   * Makes the append idempotent (Kafka's idempotent producer): the batch carries these producer
   * fields and is checked against the partition's producer state first (producer-state.ts).
   */
  producer?: ProducerAppend;
  /**
   * Codec id of the producer's batch these records came in (0, plain, by default): kept as the
   * stored codec under `compression.type=producer`, replaced by the topic's codec otherwise.
   */
  compression?: number;
  /** The batch is part of `producer`'s transaction (needs `producer`): it opens or extends it. */
  transactional?: boolean;
}

/**
 * Kafka's isolation levels. `read_committed` reads up to the last stable offset and, for records,
 * leaves out aborted transactions' data; markers are never returned as records either way.
 */
export type IsolationLevel = "read_uncommitted" | "read_committed";

/** A COMMIT or ABORT marker the transaction coordinator writes (`appendTxnMarker`). */
export interface TxnMarkerAppend {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  /** The marker's timestamp (the coordinator's clock); LogAppendTime topics stamp their own. */
  timestampMs: number;
}

export interface TxnMarkerResult {
  /** Where the marker was written. */
  offset: number;
  /**
   * True when the marker closed an open transaction of its producer here; false when there was
   * none (a retried marker, or a partition the transaction wrote nothing to): written all the
   * same, harmlessly, as Kafka does.
   */
  closedTransaction: boolean;
}

/** A producer's open transaction in this partition. */
export interface OpenTransaction {
  producerId: number;
  producerEpoch: number;
  firstOffset: number;
}

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** True when the batch was a retry of one already in the log: its offsets, nothing written. */
  duplicate?: true;
}

export interface ReadOptions {
  maxRecords?: number;
  /** Batch bytes per read (default 1 MiB, like Kafka's max.partition.fetch.bytes); ≥ one batch. */
  maxBytes?: number;
  /**
   * `read_committed` by default: records reads (REST, the console, key lookups, snapshots) never
   * show open or aborted transactions. Markers are never records.
   */
  isolation?: IsolationLevel;
}

export interface ReadBatchesOptions {
  /** Batch bytes per read (default 1 MiB, or the length of `into`); ≥ one batch. */
  maxBytes?: number;
  /** A buffer the caller reuses: batches are read into it instead of a fresh one. */
  into?: Buffer;
  /**
   * `read_uncommitted` by default (Kafka's Fetch as clients set it). `read_committed` stops at the
   * last stable offset and names the aborted transactions overlapping what it returns.
   */
  isolation?: IsolationLevel;
}

/** A `readBatches` result: the stored batches (markers and aborted data included, as Kafka serves them). */
export interface BatchesRead extends BatchRead {
  /**
   * read_committed only: the aborted transactions whose data may lie in the batches returned
   * (Kafka's FetchResponse aborted_transactions); the consumer drops their records.
   */
  abortedTransactions?: AbortedTxn[];
}

export interface SegmentInfo {
  baseOffset: number;
  lastOffset: number;
  sizeBytes: number;
  records: number;
  /** Records with a key and a null value (physically in the segment, as `records`). */
  tombstones: number;
  firstTimestamp: number | null;
  maxTimestamp: number | null;
  active: boolean;
  /** The bytes are in the remote tier only (evicted); they are fetched back when read. */
  remote: boolean;
}

export interface DeletedSegment extends SegmentInfo {
  reason: RetentionReason;
}

export interface RetentionResult {
  deleted: DeletedSegment[];
  logStartOffset: number;
}

export const DEFAULT_DEDUPE_BUFFER_BYTES = 128 * 1024 * 1024;
const DEFAULT_READ_MAX_BYTES = 1024 * 1024;

/**
 * One partition's log on disk. Appends, rolls, retention and cleaner swaps are serialized by a
 * per-log mutex; reads run synchronously against the in-memory segment list and never block.
 */
export class PartitionLog {
  readonly dir: string;
  readonly config: TopicConfig;
  readonly clock: Clock;
  readonly dedupeBufferBytes: number;
  readonly durability: Durability;
  /** What recovery found and fixed when this log was opened. */
  readonly recovery: RecoveryReport;
  /** Where the producer state was rebuilt from when this log was opened. */
  readonly producerRecovery: ProducerStateRecovery;
  /** Idempotent producers' last batches (read-only outside the log). */
  readonly producerState: ProducerStateManager;
  /** The aborted transactions' index (aborted-txn-index.ts), read-only outside the log. */
  readonly abortedTxns: AbortedTxnIndex;
  readonly mutex = new Mutex();
  private readonly limits: SegmentLimits;
  private readonly random: () => number;
  private readonly groupCommit: GroupCommit;
  /** Appends encode here under the mutex; the bytes are written before the next append runs. */
  private readonly encodeScratch = new EncodeScratch();
  private segmentList: Segment[];
  private startOffset: number;
  private durableEndOffset: number;
  private readonly pendingDeletes = new Map<NodeJS.Timeout, string[]>();
  private closed = false;
  private readonly cleaner: LogCleaner;
  private readonly beforeWrite: (() => void) | undefined;
  private readonly remoteSource: RemoteSegmentSource | undefined;
  /** Evicted segments being fetched back, so concurrent readers share one fetch. */
  private readonly fetching = new Map<Segment, Promise<void>>();

  private constructor(
    options: PartitionLogOptions,
    config: TopicConfig,
    loaded: Awaited<ReturnType<typeof loadLog>>,
    producers: { state: ProducerStateManager; recovery: ProducerStateRecovery; aborted: AbortedTxnIndex },
  ) {
    this.dir = options.dir;
    this.config = config;
    this.clock = options.clock ?? systemClock;
    this.dedupeBufferBytes = options.dedupeBufferBytes ?? DEFAULT_DEDUPE_BUFFER_BYTES;
    this.durability = options.durability ?? "per-append";
    this.random = options.random ?? Math.random;
    this.beforeWrite = options.beforeWrite;
    this.remoteSource = options.remote;
    this.limits = segmentLimits(config.segmentIndexBytes);
    this.segmentList = loaded.segments;
    this.startOffset = loaded.logStartOffset;
    this.recovery = loaded.recovery;
    this.producerState = producers.state;
    this.producerRecovery = producers.recovery;
    this.abortedTxns = producers.aborted;
    this.durableEndOffset = this.logEndOffset;
    this.activeSegment.rollJitterMs = drawRollJitterMs(config, this.random);
    this.groupCommit = new GroupCommit(
      this.mutex,
      () => this.syncActive(),
      () => this.durableEndOffset,
    );
    this.cleaner = new LogCleaner(this);
  }

  static async open(options: PartitionLogOptions): Promise<PartitionLog> {
    const config = parseTopicConfig(options.config ?? {});
    if (options.dedupeBufferBytes !== undefined) validateDedupeBufferBytes(options.dedupeBufferBytes);
    const nowMs = (options.clock ?? systemClock).now();
    const limits = segmentLimits(config.segmentIndexBytes);
    const loaded = await loadLog(options.dir, limits, nowMs);
    for (;;) {
      const state = new ProducerStateManager(
        options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS,
      );
      try {
        // The index files, then the snapshot's entries, then what the replay finds past it.
        const aborted = new AbortedTxnIndex(options.dir);
        aborted.load(loaded.logStartOffset);
        const recovery = recoverProducerState(options.dir, loaded.segments, state, nowMs, aborted);
        aborted.removeBelow(loaded.logStartOffset);
        aborted.writeFiles(loaded.segments);
        return new PartitionLog(options, config, loaded, { state, recovery, aborted });
      } catch (error) {
        // The producer state must be replayed from a segment that was evicted (no snapshot after
        // it): fetch it back and start over. Each round makes one more segment local.
        if (!(error instanceof RemoteSegmentNeeded) || !options.remote) throw error;
        const fetched = await fetchSegment(error.segment, options.remote, limits, nowMs);
        install(fetched);
        loaded.segments[loaded.segments.indexOf(error.segment)] = fetched;
        writeRemoteSegments(options.dir, remoteEntriesOf(loaded.segments));
      }
    }
  }

  get logStartOffset(): number {
    return this.startOffset;
  }

  /**
   * Kafka's last stable offset: below it every transaction is decided (committed or aborted). The
   * first offset of the earliest open transaction, else the high watermark; never below the log
   * start. read_committed reads stop here; without transactions it is the high watermark.
   *
   * Unlike Kafka it does not wait for a marker to be durable (group-commit) before counting its
   * transaction decided: the coordinator made the decision durable before writing any marker, so
   * what a reader sees as committed stays committed; a marker lost in a crash only makes the LSO
   * step back until the coordinator writes it again (it completes a transaction only once every
   * marker is acknowledged, and acknowledgement waits for durability).
   */
  get lastStableOffset(): number {
    const firstOpen = this.producerState.firstUnstableOffset();
    const lso = firstOpen !== null && firstOpen < this.durableEndOffset ? firstOpen : this.durableEndOffset;
    return Math.max(lso, this.startOffset);
  }

  /** For the cleaner: the first offset of the earliest open transaction, or null. */
  firstUnstableOffset(): number | null {
    return this.producerState.firstUnstableOffset();
  }

  /** The producers with an open transaction in this partition, by first offset. */
  openTransactions(): OpenTransaction[] {
    return this.producerState.openTransactions();
  }

  /**
   * The aborted transactions whose data may lie in [fromOffset, upperOffset) (Kafka's
   * collectAbortedTransactions), for a read_committed Fetch that serves those offsets: Kafka's
   * answer is each one's producerId and firstOffset; lastOffset (the ABORT marker's offset) lets a
   * reader that drops records itself (the REST fetch) do so without needing the marker.
   */
  abortedTransactions(fromOffset: number, upperOffset: number): AbortedTxn[] {
    return [...this.abortedTxns.collect(fromOffset, upperOffset)];
  }

  /** The next offset an append will get. */
  get logEndOffset(): number {
    return this.activeSegment.nextOffset;
  }

  /** Everything below is durable and readable; equals logEndOffset outside in-flight appends. */
  get highWatermark(): number {
    return this.durableEndOffset;
  }

  get activeSegment(): Segment {
    return this.segmentList.at(-1)!;
  }

  /** The live segments, oldest first (the last is active). For the cleaner; do not mutate. */
  get segmentObjects(): readonly Segment[] {
    return this.segmentList;
  }

  segments(): SegmentInfo[] {
    return this.segmentList.map((segment) => this.describe(segment));
  }

  /**
   * Appends one batch of records; resolves once it is durable. Rejected whole on any invalid
   * record. With `producer`, a retry of one of that producer's last five batches resolves with the
   * first append's offsets (`duplicate`) once they are durable, and writes nothing; a sequence gap
   * throws OUT_OF_ORDER_SEQUENCE, an older epoch INVALID_PRODUCER_EPOCH. The records are encoded
   * into a batch and then go the way of `appendBatch`: one validation, one write path.
   */
  async append(records: readonly AppendRecord[], options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen();
    validateAppendRecords(records);
    const { producer } = options;
    const compression = storedCodec(this.config.compressionType, options.compression ?? 0);
    if (producer) validateProducerAppend(producer, records.length);
    if (options.transactional && !producer) {
      throw new InvalidRecordError("a transactional append needs its producer fields");
    }
    const attributes = options.transactional ? TRANSACTIONAL_FLAG : 0;
    const appendTimeMs = this.clock.now();
    const result = await this.mutex.run(async (): Promise<AppendResult> => {
      this.assertOpen();
      const batch = encodeRecordBatch(
        records,
        {
          baseOffset: this.logEndOffset,
          appendTimeMs,
          timestampType: this.config.messageTimestampType,
          ...(producer && { producer: { ...producer, partitionLeaderEpoch: -1, attributes } }),
        },
        this.encodeScratch,
      );
      // Its CRC is right by construction; the records are checked as a client's would be, on the
      // plain encoding (the in-place walk reads plain records), then compressed to the stored codec.
      const checkSize = compression === 0;
      const validated = validateBatch(batch, this.config, { appendTimeMs, checkCrc: false, checkSize });
      if (checkSize) return this.writeBatch(batch, validated);
      const stored = compressBatch(batch, compression);
      checkBatchSize(stored.length, this.config);
      return this.writeBatch(stored, validated);
    });
    if (this.durability === "group-commit") await this.groupCommit.waitFor(result.lastOffset + 1);
    return result;
  }

  /**
   * Appends one already-encoded RecordBatch v2 (a Kafka producer's) as it was sent, plain or
   * compressed in the codec the topic stores (`checkStoredCodec`; any other is refused):
   * validated in place (batch-validation.ts: CRC-32C, sizes, every record by the in-place walk),
   * then its base offset is written into it (outside the CRC) and the bytes go to the segment
   * unchanged otherwise (a LogAppendTime topic restamps the header, as Kafka does). The producer
   * fields come from the header: a batch with a producer id is idempotent exactly as `append` with
   * `producer` is. The caller's buffer is modified and must not be reused for anything else.
   * `inflated`, the plain copy of a compressed batch its caller already made (off the event loop,
   * within its own bounds), is walked instead of inflating the batch here.
   */
  async appendBatch(batch: Buffer, inflated?: Buffer): Promise<AppendResult> {
    this.assertOpen();
    checkStoredCodec(batch, this.config);
    // Outside the mutex: checking a large batch's CRC must not hold up other appends.
    const validated = validateBatch(batch, this.config, {
      appendTimeMs: this.clock.now(),
      checkCrc: true,
      ...(inflated && { inflated }),
    });
    const result = await this.mutex.run(() => {
      this.assertOpen();
      return this.writeBatch(batch, validated);
    });
    if (this.durability === "group-commit") await this.groupCommit.waitFor(result.lastOffset + 1);
    return result;
  }

  /** Under the mutex: the producer check, then offset assignment, roll, write and index updates. */
  private async writeBatch(batch: Buffer, validated: ValidatedBatch): Promise<AppendResult> {
    const { producer, recordCount, transactional } = validated;
    const verdict = producer ? this.producerState.check(producer, recordCount, transactional) : null;
    if (verdict?.kind === "duplicate") {
      return { baseOffset: verdict.baseOffset, lastOffset: verdict.lastOffset, duplicate: true };
    }
    this.beforeWrite?.();
    const baseOffset = this.logEndOffset;
    setBaseOffset(batch, baseOffset);
    const lastOffset = baseOffset + recordCount - 1;
    const incoming = { sizeBytes: batch.length, maxTimestamp: validated.maxTimestamp, lastOffset };
    if (rollReason(this.activeSegment, incoming, this.config, this.clock.now())) {
      await this.rollActive();
      // The roll awaited its fsyncs: checked again, so the write still follows a check at once.
      this.beforeWrite?.();
    }
    this.activeSegment.append(batch, validated.tombstones);
    if (producer) {
      this.recordProducerBatch(producer, baseOffset, lastOffset, incoming.maxTimestamp, transactional);
    }
    if (this.durability === "per-append") await this.syncActive();
    return { baseOffset, lastOffset };
  }

  private recordProducerBatch(
    producer: ProducerAppend,
    baseOffset: number,
    lastOffset: number,
    timestampMs: number,
    transactional: boolean,
  ): void {
    this.producerState.update(
      producer.producerId,
      producer.producerEpoch,
      {
        firstSeq: producer.baseSequence,
        lastSeq: incrementSequence(producer.baseSequence, lastOffset - baseOffset),
        baseOffset,
        lastOffset,
        timestampMs,
      },
      transactional,
    );
  }

  /**
   * Writes a COMMIT or ABORT marker for `producerId`'s transaction (the coordinator's call, once
   * per partition of the transaction); resolves once it is durable (per-append) or published
   * (group-commit, like appends). Kafka's checks first: an epoch older than the producer's is
   * refused (InvalidProducerEpochError, nothing written), so is an older coordinator epoch
   * (TransactionCoordinatorFencedError). A marker for a producer with no open transaction here is
   * written anyway, harmlessly (a retry after a lost answer, a partition the transaction wrote
   * nothing to): `closedTransaction` says which it was. An ABORT that closes a transaction adds
   * it to the aborted-transaction index. The marker's epoch may be newer than the producer's data
   * (the coordinator bumps it to abort a timed-out or fenced transaction): it becomes current.
   */
  async appendTxnMarker(marker: TxnMarkerAppend): Promise<TxnMarkerResult> {
    this.assertOpen();
    validateMarker(marker);
    const result = await this.mutex.run(async (): Promise<TxnMarkerResult> => {
      this.assertOpen();
      const { producerId, producerEpoch, coordinatorEpoch } = marker;
      this.producerState.checkMarker(producerId, producerEpoch, coordinatorEpoch);
      this.beforeWrite?.();
      const offset = this.logEndOffset;
      const timestampMs =
        this.config.messageTimestampType === "LogAppendTime" ? this.clock.now() : marker.timestampMs;
      const batch = encodeControlBatch({
        baseOffset: offset,
        producerId,
        producerEpoch,
        commit: marker.commit,
        coordinatorEpoch,
        timestampMs,
        timestampType: this.config.messageTimestampType,
      });
      const incoming = { sizeBytes: batch.length, maxTimestamp: timestampMs, lastOffset: offset };
      if (rollReason(this.activeSegment, incoming, this.config, this.clock.now())) {
        await this.rollActive();
        this.beforeWrite?.();
      }
      this.activeSegment.append(batch, 0);
      const completed = this.producerState.applyMarker(producerId, producerEpoch, {
        commit: marker.commit,
        coordinatorEpoch,
        offset,
        timestampMs,
      });
      if (completed?.aborted) {
        this.abortedTxns.add({
          producerId,
          firstOffset: completed.firstOffset,
          lastOffset: offset,
          lastStableOffset: this.producerState.firstUnstableOffset() ?? offset + 1,
        });
        const active = this.activeSegment;
        this.abortedTxns.writeSegmentFile(active.baseOffset, active.nextOffset);
      }
      if (this.durability === "per-append") await this.syncActive();
      return { offset, closedTransaction: completed !== null };
    });
    if (this.durability === "group-commit") await this.groupCommit.waitFor(result.offset + 1);
    return result;
  }

  /**
   * Writes the producer state as of the log end beside the segments (at roll and close), after
   * forgetting expired producers; recovery then replays only the log after it.
   */
  private snapshotProducerState(): void {
    this.producerState.removeExpired(this.clock.now());
    writeProducerSnapshot(this.dir, {
      offset: this.logEndOffset,
      entries: this.producerState.entries(),
      aborted: [...this.abortedTxns.all()],
    });
  }

  /**
   * For the cleaner: the offset each live producer's last batch ends at, expired producers
   * forgotten first. That batch is kept (emptied if need be), as Kafka's cleaner keeps it.
   */
  producerLastBatchEnds(): ReadonlyMap<number, number> {
    this.producerState.removeExpired(this.clock.now());
    return this.producerState.lastBatchEndOffsets();
  }

  private async syncActive(): Promise<void> {
    // close() already flushed everything and published it; its files are gone now.
    if (this.closed) return;
    const end = this.logEndOffset;
    await this.activeSegment.flushLog();
    this.durableEndOffset = Math.max(this.durableEndOffset, end);
  }

  /**
   * Records from `fromOffset` on (first offset ≥ it), bounded by maxRecords/maxBytes. A read that
   * reaches an evicted segment within its bounds fetches it back and is made again (the batches
   * before it are read twice, once per segment fetched: rare, and it keeps the read exact).
   */
  async read(fromOffset: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    const committed = (options.isolation ?? "read_committed") === "read_committed";
    for (;;) {
      const stoppedAt = { remote: null as Segment | null };
      const bounds = { ...this.readBounds(fromOffset, options), stoppedAt };
      if (committed) bounds.endOffset = this.lastStableOffset;
      bounds.skip = this.recordSkip(fromOffset, committed ? bounds.endOffset : null);
      const records = readRecords(this.segmentList, fromOffset, bounds);
      if (stoppedAt.remote === null) return records;
      await this.fetchBack(stoppedAt.remote);
    }
  }

  /**
   * Whole stored batches from `fromOffset` on, undecoded (serve as-is); bounded by maxBytes. With
   * `into`, read into that buffer (maxBytes defaults to and is capped by its length): the result
   * is a view of it, valid until the caller reuses it.
   */
  async readBatches(fromOffset: number, options: ReadBatchesOptions = {}): Promise<BatchesRead> {
    const { into } = options;
    const maxBytes = into ? Math.min(options.maxBytes ?? into.length, into.length) : options.maxBytes;
    const committed = options.isolation === "read_committed";
    for (;;) {
      const stoppedAt = { remote: null as Segment | null };
      const bounds = { ...this.readBounds(fromOffset, { maxBytes }), stoppedAt };
      if (committed) bounds.endOffset = this.lastStableOffset;
      const read: BatchesRead = readBatches(this.segmentList, fromOffset, bounds, into);
      if (stoppedAt.remote !== null) {
        await this.fetchBack(stoppedAt.remote);
        continue;
      }
      if (committed) read.abortedTransactions = this.abortedTransactions(fromOffset, read.nextOffset);
      return read;
    }
  }

  /**
   * What a records read leaves out: markers always; with `committedEnd` (read_committed) the data
   * batches of transactions aborted in [fromOffset, committedEnd). Null when nothing can be.
   */
  private recordSkip(
    fromOffset: number,
    committedEnd: number | null,
  ): ((buf: Buffer, pos: number) => boolean) | undefined {
    const aborted = committedEnd === null ? [] : this.abortedTxns.collect(fromOffset, committedEnd);
    return (buf, pos) => {
      if (!isTransactionalBatch(buf, pos)) return false;
      if (isControlBatch(buf, pos)) return true;
      if (aborted.length === 0) return false;
      const producerId = readInt64(buf, pos + OFF_PRODUCER_ID);
      const offset = readInt64(buf, pos);
      return aborted.some(
        (txn) => txn.producerId === producerId && txn.firstOffset <= offset && offset <= txn.lastOffset,
      );
    };
  }

  /**
   * Fetches an evicted segment's bytes back from the remote source and makes it a local segment
   * again (concurrent callers share the fetch). The bytes are checked first (CRC of every batch,
   * the same offsets and records as when evicted); the swap into the list is quick and under the
   * mutex. A segment removed meanwhile (retention) is not brought back.
   */
  fetchBack(segment: Segment): Promise<void> {
    let pending = this.fetching.get(segment);
    if (pending === undefined) {
      pending = this.fetchBackOnce(segment).finally(() => this.fetching.delete(segment));
      this.fetching.set(segment, pending);
    }
    return pending;
  }

  private async fetchBackOnce(placeholder: Segment): Promise<void> {
    this.assertOpen();
    if (!this.remoteSource) {
      throw new CorruptSegmentError(
        placeholder.baseOffset,
        0,
        "the segment is evicted and this log has no remote source",
      );
    }
    const fetched = await fetchSegment(placeholder, this.remoteSource, this.limits, this.clock.now());
    await this.mutex.run(() => {
      const index = this.segmentList.indexOf(placeholder);
      if (this.closed || index < 0) {
        discard(fetched);
        return;
      }
      install(fetched);
      this.segmentList[index] = fetched;
      writeRemoteSegments(this.dir, remoteEntriesOf(this.segmentList));
    });
  }

  /**
   * Evicts a closed segment to the remote tier: its bookkeeping is recorded with `ref` (the
   * caller's name for bytes it already keeps elsewhere, e.g. an object key), then its files are
   * removed; reads fetch it back through the remote source. Waits for a running cleaner pass (a
   * pass reads closed segments without the mutex). False when the segment is not a closed, local,
   * uncorrupted segment of this log.
   */
  async evictSegment(baseOffset: number, ref: string): Promise<boolean> {
    this.assertOpen();
    return this.cleaner.exclusive(() =>
      this.mutex.run(() => {
        this.assertOpen();
        const index = this.segmentList.findIndex((segment) => segment.baseOffset === baseOffset);
        const segment = this.segmentList[index];
        if (!segment || segment === this.activeSegment || segment.remote || segment.corruption) return false;
        const entry = segment.remoteEntry(ref, largestTimestamp(segment));
        const placeholder = Segment.remote(this.dir, entry, this.limits);
        // Recorded before the files go: a crash in between finds the file, which wins at open.
        writeRemoteSegments(this.dir, [...remoteEntriesOf(this.segmentList), entry]);
        this.segmentList[index] = placeholder;
        discard(segment);
        fsyncDirectory(this.dir);
        return true;
      }),
    );
  }

  /** The base offset of the first segment starting after `offset`, or null when none does. */
  nextSegmentBase(offset: number): number | null {
    const list = this.segmentList;
    let low = 0;
    let high = list.length - 1;
    let found: number | null = null;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (list[mid]!.baseOffset > offset) {
        found = list[mid]!.baseOffset;
        high = mid - 1;
      } else {
        low = mid + 1;
      }
    }
    return found;
  }

  /**
   * The bookkeeping a remote tier keeps for a closed, local segment (what `evictSegment` records
   * and `seedLog` lays down), naming its bytes `ref`; null for any other segment.
   */
  remoteEntryOf(baseOffset: number, ref: string): RemoteSegmentEntry | null {
    const segment = this.segmentList.find((s) => s.baseOffset === baseOffset);
    if (!segment || segment === this.activeSegment || segment.remote || segment.corruption) return null;
    return segment.remoteEntry(ref, largestTimestamp(segment));
  }

  /**
   * The producer-state snapshot file written when the log end was `offset` (at a roll or close),
   * while it is still kept beside the segments; null otherwise. For a remote tier that keeps it
   * with the segment ending there, so a log rebuilt from that tier need not replay what it evicted.
   */
  producerSnapshotAt(offset: number): Buffer | null {
    return readProducerSnapshotBytes(this.dir, offset);
  }

  /**
   * Kafka's ListOffsets by timestamp: the first readable record (offset order, from the log start
   * to the high watermark) whose timestamp is ≥ `timestampMs`, with that timestamp, found through
   * the segments' time and offset indexes (timestamp-search.ts); null when none is that recent.
   */
  async offsetForTimestamp(timestampMs: number): Promise<TimestampAndOffset | null> {
    this.assertOpen();
    return findOffsetByTimestamp(this.segmentList, timestampMs, {
      minOffset: this.startOffset,
      endOffset: this.durableEndOffset,
    });
  }

  private readBounds(fromOffset: number, options: ReadOptions): ReadBounds {
    this.assertOpen();
    if (
      !Number.isSafeInteger(fromOffset) ||
      fromOffset < this.startOffset ||
      fromOffset > this.durableEndOffset
    ) {
      throw new OffsetOutOfRangeError(
        `offset ${fromOffset} is outside the readable range [${this.startOffset}, ${this.durableEndOffset}]`,
      );
    }
    return {
      minOffset: this.startOffset,
      endOffset: this.durableEndOffset,
      maxRecords: options.maxRecords ?? Number.POSITIVE_INFINITY,
      maxBytes: options.maxBytes ?? DEFAULT_READ_MAX_BYTES,
    };
  }

  /** Closes the active segment and opens a new one at the log end; a no-op when it is empty. */
  async roll(): Promise<void> {
    this.assertOpen();
    await this.mutex.run(() => {
      this.assertOpen();
      return this.rollActive();
    });
  }

  /** Beyond Kafka: rolls a non-empty active segment whose age passed the limit, without an append. */
  async maybeRoll(): Promise<boolean> {
    this.assertOpen();
    return this.mutex.run(async () => {
      this.assertOpen();
      const due = timeRollDueAt(this.activeSegment, this.config);
      if (due === null || this.clock.now() < due) return false;
      await this.rollActive();
      return true;
    });
  }

  /** When `maybeRoll` will next roll an idle active segment, or null while it is empty. */
  rollDueAt(): number | null {
    return timeRollDueAt(this.activeSegment, this.config);
  }

  private async rollActive(): Promise<void> {
    const previous = this.activeSegment;
    if (previous.isEmpty) return;
    previous.seal();
    await previous.flushAll();
    const next = Segment.create(this.dir, this.logEndOffset, this.limits, this.clock.now());
    next.rollJitterMs = drawRollJitterMs(this.config, this.random);
    fsyncDirectory(this.dir);
    this.segmentList.push(next);
    this.durableEndOffset = this.logEndOffset;
    writeCheckpoint(this.dir, RECOVERY_POINT_CHECKPOINT, this.logEndOffset);
    this.checkpointTombstoneCounts();
    this.snapshotProducerState();
  }

  /**
   * Persists the closed segments' tombstone counts (tombstone-counts.ts), so the next open needs
   * no scan for them. Called at roll, close and after a cleaner pass; a crash before it costs a
   * scan of the segments it would have covered, never a wrong count.
   */
  checkpointTombstoneCounts(): void {
    writeTombstoneCounts(this.dir, this.segmentList.slice(0, -1));
  }

  /** Moves the log start offset forward (Kafka's deleteRecords); segments go at the next retention run. */
  async deleteRecordsBefore(offset: number): Promise<{ logStartOffset: number }> {
    this.assertOpen();
    if (!this.config.cleanupPolicy.delete) {
      throw new PolicyViolationError(
        "deleteRecordsBefore is not allowed on a topic with cleanup.policy=compact",
      );
    }
    return this.mutex.run(() => {
      this.assertOpen();
      if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.durableEndOffset) {
        throw new OffsetOutOfRangeError(
          `cannot delete records before ${offset}: it must be between 0 and the high watermark ${this.durableEndOffset}`,
        );
      }
      if (offset > this.startOffset) this.setLogStartOffset(offset);
      return { logStartOffset: this.startOffset };
    });
  }

  private setLogStartOffset(offset: number): void {
    this.startOffset = offset;
    writeCheckpoint(this.dir, LOG_START_OFFSET_CHECKPOINT, offset);
    // Retention or deleteRecords moved the start: producers idle past producer.id.expiration.ms
    // go now (Kafka checks every 10 min), not at the next roll, which a quiet partition may never
    // make. Producers are kept by time, not by offset: their last batch below the new start does
    // not end them (KIP-360), so a producer between two sends is not told UNKNOWN_PRODUCER_ID.
    this.producerState.removeExpired(this.clock.now());
  }

  /** Kafka's deleteOldSegments: log start offset, then size and time when `delete` is in the policy. */
  async applyRetention(): Promise<RetentionResult> {
    this.assertOpen();
    return this.mutex.run(async () => {
      this.assertOpen();
      const deleted: DeletedSegment[] = [];
      const totalBytes = this.segmentList.reduce((sum, segment) => sum + segment.sizeBytes, 0);
      const state = { logStartOffset: this.startOffset, nowMs: this.clock.now(), totalBytes };
      for (const rule of retentionRules(this.config, state)) {
        const doomed = deletableSegments(this.segmentList, rule, this.durableEndOffset, this.logEndOffset);
        if (doomed.length === 0) continue;
        if (doomed.length === this.segmentList.length) await this.rollActive();
        for (const segment of doomed) deleted.push({ ...this.describe(segment), reason: rule.reason });
        this.removeSegments(doomed);
        state.logStartOffset = this.startOffset;
        state.totalBytes -= doomed.reduce((sum, segment) => sum + segment.sizeBytes, 0);
      }
      return { deleted, logStartOffset: this.startOffset };
    });
  }

  private removeSegments(doomed: readonly Segment[]): void {
    const gone = new Set(doomed);
    this.segmentList = this.segmentList.filter((segment) => !gone.has(segment));
    const firstBase = this.segmentList[0]!.baseOffset;
    if (firstBase > this.startOffset) this.setLogStartOffset(firstBase);
    if (this.abortedTxns.size > 0) {
      this.abortedTxns.removeBelow(firstBase);
      this.abortedTxns.writeFiles(this.segmentList);
    }
    for (const segment of doomed) if (segment.remote === null) this.scheduleFileDeletion(segment.retire());
    if (doomed.some((segment) => segment.remote !== null)) {
      writeRemoteSegments(this.dir, remoteEntriesOf(this.segmentList));
    }
    fsyncDirectory(this.dir);
  }

  /** Unlinks retired `.deleted` files after file.delete.delay.ms (at once on close; on open after a crash). */
  scheduleFileDeletion(paths: string[]): void {
    const timer = setTimeout(() => {
      this.pendingDeletes.delete(timer);
      unlinkAll(paths);
    }, this.config.fileDeleteDelayMs);
    timer.unref();
    this.pendingDeletes.set(timer, paths);
  }

  /**
   * Unlinks retired `.deleted` files now instead of after file.delete.delay.ms. Nothing reads them
   * (their descriptors closed when they were retired; reads hold no file across awaits): the delay
   * is Kafka's, kept by default, and an erasure that must prove old bytes gone need not wait for it.
   */
  deleteRetiredFiles(): void {
    for (const [timer, paths] of this.pendingDeletes) {
      clearTimeout(timer);
      unlinkAll(paths);
    }
    this.pendingDeletes.clear();
  }

  /** The cleaner's view of this log now (Kafka's cleanable range, dirty ratio and compaction delay). */
  cleanableStats(): CleanableStats {
    this.assertOpen();
    return this.cleaner.stats();
  }

  /** One cleaning pass when due, or whenever `force` (cleaner.ts); a no-op result otherwise. */
  async clean(options: { force?: boolean } = {}): Promise<CleanResult> {
    this.assertOpen();
    return this.cleaner.clean(options);
  }

  /**
   * Rewrites the closed segments at `baseOffsets` without the records of `key` below `belowOffset`
   * (an erasure's targeted rewrite; cleaner.ts `purge`).
   */
  async purgeKey(
    key: Buffer,
    belowOffset: number,
    baseOffsets: readonly number[],
    options: PurgeOptions = {},
  ): Promise<CleanResult> {
    this.assertOpen();
    return this.cleaner.purge(key, belowOffset, baseOffsets, options);
  }

  /** Earliest time a pass becomes due without new writes (max lag, min lag, a delete horizon), or null. */
  nextCleanDueAt(): number | null {
    this.assertOpen();
    return this.cleaner.nextCleanDueAt();
  }

  /**
   * For the cleaner, under `mutex`: swaps `replaced` (consecutive live segments) for
   * `replacements` in the in-memory list, closing the replaced segments' files.
   */
  replaceSegments(replacements: readonly Segment[], replaced: readonly Segment[]): void {
    const first = this.segmentList.indexOf(replaced[0]!);
    invariant(
      replaced.length > 0 &&
        first >= 0 &&
        replaced.every((segment, i) => this.segmentList[first + i] === segment),
      "a swap replaces consecutive live segments",
    );
    const from = replaced[0]!.baseOffset;
    const to = replaced[replaced.length - 1]!.nextOffset;
    invariant(
      replacements.every((segment) => segment.baseOffset >= from && segment.nextOffset <= to),
      () => `a swap's new segments lie inside the range [${from}, ${to}) they replace`,
    );
    invariant(!replaced.includes(this.activeSegment), "a swap never replaces the active segment");
    const gone = new Set(replaced);
    const kept = this.segmentList.filter((segment) => !gone.has(segment));
    this.segmentList = [...kept, ...replacements].sort((a, b) => a.baseOffset - b.baseOffset);
    for (const segment of replaced) segment.close();
    // The swapped-in segments' aborted transactions are named for their new base offsets.
    if (this.abortedTxns.size > 0) this.abortedTxns.writeFiles(this.segmentList);
    // The list the swap leaves: offsets in order without overlap, the active segment still last.
    invariant(
      this.segmentList.every(
        (segment, i) => i === 0 || this.segmentList[i - 1]!.nextOffset <= segment.baseOffset,
      ),
      "segments after a swap hold offsets in order without overlap",
    );
    invariant(this.segmentList.at(-1) === this.activeSegment, "the active segment stays last after a swap");
  }

  /** Flushes, records a clean recovery point and closes every file. Later calls throw LOG_CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.mutex.run(async () => {
      if (this.closed) return;
      await this.activeSegment.flushAll();
      this.durableEndOffset = this.logEndOffset;
      writeCheckpoint(this.dir, RECOVERY_POINT_CHECKPOINT, this.logEndOffset);
      this.checkpointTombstoneCounts();
      this.snapshotProducerState();
      for (const segment of this.segmentList) segment.close();
      for (const [timer, paths] of this.pendingDeletes) {
        clearTimeout(timer);
        unlinkAll(paths);
      }
      this.pendingDeletes.clear();
      this.closed = true;
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed) throw new LogClosedError(this.dir);
  }

  private describe(segment: Segment): SegmentInfo {
    return {
      baseOffset: segment.baseOffset,
      lastOffset: segment.lastOffset,
      sizeBytes: segment.sizeBytes,
      records: segment.recordCount,
      tombstones: segment.tombstoneCount,
      firstTimestamp: segment.firstBatchTimestamp >= 0 ? segment.firstBatchTimestamp : null,
      maxTimestamp: segment.maxTimestamp >= 0 ? segment.maxTimestamp : null,
      active: segment === this.activeSegment,
      remote: segment.remote !== null,
    };
  }
}

/** Refuses marker fields no control batch could carry (a typed error, nothing written). */
function validateMarker(marker: TxnMarkerAppend): void {
  validateProducerAppend(
    { producerId: marker.producerId, producerEpoch: marker.producerEpoch, baseSequence: 0 },
    1,
  );
  if (
    !Number.isInteger(marker.coordinatorEpoch) ||
    marker.coordinatorEpoch < 0 ||
    marker.coordinatorEpoch > 2147483647
  ) {
    throw new InvalidTxnStateError(
      `coordinatorEpoch ${marker.coordinatorEpoch} must be an integer in [0, 2^31 - 1]`,
    );
  }
  if (!Number.isSafeInteger(marker.timestampMs) || marker.timestampMs < 0) {
    throw new InvalidRecordError(`marker timestamp ${marker.timestampMs} must be a non-negative integer`);
  }
}

/** The remote-tier entries of the evicted segments in `segments`. */
function remoteEntriesOf(segments: readonly Segment[]): RemoteSegmentEntry[] {
  const entries: RemoteSegmentEntry[] = [];
  for (const segment of segments) {
    if (segment.remote)
      entries.push(segment.remoteEntry(segment.remote.ref, segment.remote.largestTimestampMs));
  }
  return entries;
}

function unlinkAll(paths: readonly string[]): void {
  for (const file of paths) fs.rmSync(file, { force: true });
}
