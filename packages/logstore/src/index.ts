export type {
  AppendRecord,
  LogRecord,
  RecordBatchHeader,
  RecordHeader,
  TimestampType,
} from "@lastword/record-batch";
export {
  decodeBatch,
  encodeRecordBatch,
  isControlBatch,
  isTransactionalBatch,
  readBatchHeader,
  readTxnMarker,
} from "@lastword/record-batch";
export type { AbortedTransaction, AbortedTxn } from "./aborted-txn-index";
export {
  CorruptBatchError,
  InvalidBatchRecordsError,
  InvalidTimestampError,
  type ValidatedBatch,
} from "./batch-validation";
export { readTextFile, writeFileAtomically } from "./checkpoint-file";
export type { CleanResult, CleanTrigger } from "./clean-result";
export type { CleanableStats, PurgeOptions } from "./cleaner";
export type { RemovedTombstone, TombstoneRemovalReason } from "./cleaner-batch";
export { type Clock, ManualClock, systemClock } from "./clock";
export type { LogStoreErrorCode } from "./errors";
export {
  CorruptSegmentError,
  InvalidConfigError,
  InvalidProducerEpochError,
  InvalidRecordError,
  InvalidTxnStateError,
  LogClosedError,
  LogStoreError,
  OffsetOutOfRangeError,
  OutOfOrderSequenceError,
  PolicyViolationError,
  RecordTooLargeError,
  TransactionCoordinatorFencedError,
} from "./errors";
export type { RecoveryReport } from "./log-loader";
export type { BatchRead } from "./log-reader";
export { type SeedOptions, type SeedPart, seedLog } from "./log-seed";
export type {
  AppendOptions,
  AppendResult,
  BatchesRead,
  DeletedSegment,
  Durability,
  IsolationLevel,
  OpenTransaction,
  PartitionLogOptions,
  ReadBatchesOptions,
  ReadOptions,
  RetentionResult,
  SegmentInfo,
  TxnMarkerAppend,
  TxnMarkerResult,
} from "./partition-log";
export { PartitionLog } from "./partition-log";
export type {
  CompletedTxn,
  ProducerAppend,
  ProducerBatch,
  ProducerEntry,
  ProducerVerdict,
} from "./producer-state";
export {
  DEFAULT_PRODUCER_ID_EXPIRATION_MS,
  NO_PRODUCER_ID,
  PRODUCER_BATCHES_RETAINED,
  ProducerStateManager,
} from "./producer-state";
export type { ProducerStateRecovery } from "./producer-state-recovery";
export type { RemoteSegmentEntry, RemoteSegmentSource } from "./remote-segments";
export type { RetentionReason } from "./retention";
export { storedCodec } from "./stored-compression";
export type { TimestampAndOffset } from "./timestamp-search";
