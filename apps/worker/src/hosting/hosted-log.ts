import type {
  AbortedTxn,
  AppendOptions,
  AppendRecord,
  AppendResult,
  BatchesRead,
  CleanableStats,
  CleanResult,
  Clock,
  IsolationLevel,
  LogRecord,
  OpenTransaction,
  PurgeOptions,
  RemoteSegmentEntry,
  RemoteSegmentSource,
  RetentionResult,
  SegmentInfo,
  TimestampAndOffset,
  TxnMarkerAppend,
  TxnMarkerResult,
} from "@lastword/logstore";
import type { TopicConfig } from "@lastword/topic-config";

/**
 * What the worker needs from a partition log: the slice of @lastword/logstore's PartitionLog it calls.
 * Kept as an interface so the hosting, fencing and data-plane code depend on behaviour, not on the
 * engine's internals; log-opener.ts binds it to the real PartitionLog.
 */
/** The engine's record types (those of its batch format), used as they are. */
export type { AppendRecord, LogRecord } from "@lastword/logstore";

/** The engine's own segment description (the worker passes it through unchanged). */
export type LogSegment = SegmentInfo;

export interface HostedLog {
  readonly logStartOffset: number;
  /** The next offset an append will get: it counts an append still being made durable. */
  readonly logEndOffset: number;
  /**
   * Every offset below is durable and readable: what a reader may be told is the end (a read from
   * past it is out of range). Below logEndOffset only while an append is being made durable.
   */
  readonly highWatermark: number;
  /** With `producer`, idempotent: a resend of a batch the log holds resolves `duplicate` with its offsets. */
  append(records: readonly AppendRecord[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * One uncompressed RecordBatch v2 appended as sent (base offset written in place), validated by
   * the same rules as `append`; idempotent when its header carries a producer id.
   */
  appendBatch(batch: Buffer, inflated?: Buffer): Promise<AppendResult>;
  /**
   * Records from `fromOffset`: read_committed unless told otherwise (up to the LSO, aborted
   * transactions' records left out); transaction markers are never records.
   */
  read(
    fromOffset: number,
    options: { maxRecords?: number; maxBytes?: number; isolation?: IsolationLevel },
  ): Promise<LogRecord[]>;
  /**
   * Whole stored batches from `fromOffset` (the first may start below it), for paged and
   * pass-through reads: read_uncommitted unless told otherwise; read_committed stops at the LSO
   * and names the aborted transactions the batches may hold.
   */
  readBatches(
    fromOffset: number,
    options?: { maxBytes?: number; into?: Buffer; isolation?: IsolationLevel },
  ): Promise<BatchesRead>;
  /** Kafka's last stable offset (≤ highWatermark): read_committed readers are told this is the end. */
  readonly lastStableOffset: number;
  /** The producers with an open transaction here, by first offset. */
  openTransactions(): OpenTransaction[];
  /** The aborted transactions whose data may lie in [fromOffset, upperOffset). */
  abortedTransactions(fromOffset: number, upperOffset: number): AbortedTxn[];
  /**
   * Writes a COMMIT/ABORT marker for a producer's transaction (the coordinator's, through
   * write-path.ts `writeTxnMarker`); fenced epochs are refused with nothing written.
   */
  appendTxnMarker(marker: TxnMarkerAppend): Promise<TxnMarkerResult>;
  /**
   * Kafka's ListOffsets by timestamp: the first readable record whose timestamp is ≥ `timestampMs`
   * (offset and that timestamp), found through the time index; null when none is that recent.
   * Async: a segment may have to be fetched back before it can be searched.
   */
  offsetForTimestamp(timestampMs: number): Promise<TimestampAndOffset | null>;
  segments(): LogSegment[] | Promise<LogSegment[]>;
  close(): Promise<void>;
  /** The parsed config in force (policy, retention limits). */
  readonly config: TopicConfig;
  readonly isClosed: boolean;
  cleanableStats(): CleanableStats;
  clean(options?: { force?: boolean }): Promise<CleanResult>;
  nextCleanDueAt(): number | null;
  maybeRoll(): Promise<boolean>;
  /** Closes the active segment now (an erasure tombstone in it must become cleanable). */
  roll(): Promise<void>;
  applyRetention(): Promise<RetentionResult>;
  /** Kafka's deleteRecords: moves the log start offset forward (POLICY_VIOLATION on compact-only topics). */
  deleteRecordsBefore(offset: number): Promise<{ logStartOffset: number }>;
  /** An erasure's targeted rewrite: the segments at `baseOffsets` without the key's records below `belowOffset`. */
  purgeKey(
    key: Buffer,
    belowOffset: number,
    baseOffsets: readonly number[],
    options?: PurgeOptions,
  ): Promise<CleanResult>;
  /** Unlinks files retired by a pass or retention now rather than after file.delete.delay.ms. */
  deleteRetiredFiles(): void;
  /** The base of the first segment starting after `offset` (where a commit row must end), or null. */
  nextSegmentBase(offset: number): number | null;
  /** A closed local segment's bookkeeping as the remote tier keeps it, or null. */
  remoteEntryOf(baseOffset: number, ref: string): RemoteSegmentEntry | null;
  /** The producer-state snapshot file as of log end `offset`, while it is kept. */
  producerSnapshotAt(offset: number): Buffer | null;
  /** Evicts an uploaded closed segment from the local disk (fetched back through `remote` when read). */
  evictSegment(baseOffset: number, ref: string): Promise<boolean>;
}

export interface OpenLogOptions {
  dir: string;
  config: Record<string, string | number>;
  /** The worker's clock: the log's append times, rolls, retention and cleaner horizons read it. */
  clock: Clock;
  /**
   * Run right before each append's bytes are written, with no event-loop turn in between (the log
   * store's `beforeWrite`); a throw refuses the append. The partition's storage fence check.
   */
  beforeWrite?: () => void;
  /** Where evicted segments are fetched back from (with an object store). */
  remote?: RemoteSegmentSource;
  /**
   * A persisted key index to start from (with an object store: durability/durable-partitions.ts);
   * `load` answers null when none is kept. Used by `withKeyIndex` only when it fits the log opened
   * (indexed-log.ts), else the index is rebuilt by a scan; `report` is told which.
   */
  keyIndexSnapshot?: {
    load(): Promise<Buffer | null>;
    report(seeding: KeyIndexSeeding): void;
  };
}

/** How the index of a log opened with a persisted snapshot came to be (how many entries it started from). */
export type KeyIndexSeeding =
  | { seeded: true; entries: number; caughtUpFrom: number }
  | { seeded: false; reason: string };

export type OpenLog = (options: OpenLogOptions) => Promise<HostedLog>;
