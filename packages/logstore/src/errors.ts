/** Stable codes other layers switch on; the message is for people. */
export type LogStoreErrorCode =
  | "INVALID_RECORD"
  | "RECORD_TOO_LARGE"
  | "OFFSET_OUT_OF_RANGE"
  | "INVALID_CONFIG"
  | "POLICY_VIOLATION"
  | "CORRUPT_SEGMENT"
  | "LOG_CLOSED"
  | "OUT_OF_ORDER_SEQUENCE"
  | "INVALID_PRODUCER_EPOCH"
  | "INVALID_TXN_STATE"
  | "TRANSACTION_COORDINATOR_FENCED";

export class LogStoreError extends Error {
  readonly code: LogStoreErrorCode;

  constructor(code: LogStoreErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A record the log refuses as a whole batch (e.g. a null key on a compacted topic). */
export class InvalidRecordError extends LogStoreError {
  constructor(message: string) {
    super("INVALID_RECORD", message);
  }
}

/** A batch above `max.message.bytes` or larger than a whole segment. */
export class RecordTooLargeError extends LogStoreError {
  constructor(message: string) {
    super("RECORD_TOO_LARGE", message);
  }
}

/** A read or delete position outside [logStartOffset, highWatermark]. */
export class OffsetOutOfRangeError extends LogStoreError {
  constructor(message: string) {
    super("OFFSET_OUT_OF_RANGE", message);
  }
}

export class InvalidConfigError extends LogStoreError {
  constructor(message: string) {
    super("INVALID_CONFIG", message);
  }
}

/** An operation the topic's cleanup policy forbids (deleteRecords on a compact-only topic). */
export class PolicyViolationError extends LogStoreError {
  constructor(message: string) {
    super("POLICY_VIOLATION", message);
  }
}

/** Bytes inside a closed segment that do not form a valid batch; they are never served. */
export class CorruptSegmentError extends LogStoreError {
  readonly segmentBaseOffset: number;
  readonly position: number;

  constructor(segmentBaseOffset: number, position: number, reason: string) {
    super(
      "CORRUPT_SEGMENT",
      `segment ${segmentBaseOffset} is corrupt at byte ${position}: ${reason}; its records from there on cannot be served`,
    );
    this.segmentBaseOffset = segmentBaseOffset;
    this.position = position;
  }
}

export class LogClosedError extends LogStoreError {
  constructor(dir: string) {
    super("LOG_CLOSED", `the log at ${dir} is closed`);
  }
}

/** An idempotent batch whose sequence does not follow its producer's last one (Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER). */
export class OutOfOrderSequenceError extends LogStoreError {
  constructor(message: string) {
    super("OUT_OF_ORDER_SEQUENCE", message);
  }
}

/** An idempotent batch from an epoch older than its producer's current one: a fenced producer. */
export class InvalidProducerEpochError extends LogStoreError {
  readonly producerId: number;
  readonly currentEpoch: number;

  constructor(producerId: number, epoch: number, currentEpoch: number) {
    super(
      "INVALID_PRODUCER_EPOCH",
      `producer ${producerId}: epoch ${epoch} is older than its current epoch ${currentEpoch}`,
    );
    this.producerId = producerId;
    this.currentEpoch = currentEpoch;
  }
}

/**
 * A producer's write that does not fit its transaction state (Kafka's INVALID_TXN_STATE): a
 * non-transactional batch while its transaction is open, a control batch sent by a client.
 */
export class InvalidTxnStateError extends LogStoreError {
  constructor(message: string) {
    super("INVALID_TXN_STATE", message);
  }
}

/** A marker from a coordinator epoch older than the last one seen for its producer (a zombie coordinator). */
export class TransactionCoordinatorFencedError extends LogStoreError {
  readonly producerId: number;
  readonly currentCoordinatorEpoch: number;

  constructor(producerId: number, coordinatorEpoch: number, currentCoordinatorEpoch: number) {
    super(
      "TRANSACTION_COORDINATOR_FENCED",
      `producer ${producerId}: coordinator epoch ${coordinatorEpoch} is older than ${currentCoordinatorEpoch}`,
    );
    this.producerId = producerId;
    this.currentCoordinatorEpoch = currentCoordinatorEpoch;
  }
}
