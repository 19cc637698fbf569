/**
 * Stable codes callers switch on. NOT_OWNER, PARTITION_UNAVAILABLE and WORKER_UNAVAILABLE (a
 * call to one named worker that is stopped or unreachable) are retriable; the log store's
 * own codes pass through unchanged so the control plane can translate them in one place.
 */
export const DATA_PLANE_ERROR_CODES = [
  "NOT_OWNER",
  "PARTITION_UNAVAILABLE",
  "PARTITION_NOT_FOUND",
  "WORKER_UNAVAILABLE",
  "INVALID_RECORD",
  "RECORD_TOO_LARGE",
  "OFFSET_OUT_OF_RANGE",
  "POLICY_VIOLATION",
  "INVALID_CONFIG",
  "CORRUPT_SEGMENT",
  "OUT_OF_ORDER_SEQUENCE",
  "INVALID_PRODUCER_EPOCH",
  "INVALID_TXN_STATE",
  "TRANSACTION_COORDINATOR_FENCED",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "INTERNAL",
] as const;

export type DataPlaneErrorCode = (typeof DATA_PLANE_ERROR_CODES)[number];

const RETRIABLE: ReadonlySet<DataPlaneErrorCode> = new Set([
  "NOT_OWNER",
  "PARTITION_UNAVAILABLE",
  "WORKER_UNAVAILABLE",
]);

/** The HTTP status a worker answers with for each code; the client maps bodies back by `code`, not status. */
export const HTTP_STATUS_BY_CODE: Record<DataPlaneErrorCode, number> = {
  NOT_OWNER: 409,
  PARTITION_UNAVAILABLE: 503,
  PARTITION_NOT_FOUND: 404,
  WORKER_UNAVAILABLE: 503,
  INVALID_RECORD: 400,
  RECORD_TOO_LARGE: 413,
  OFFSET_OUT_OF_RANGE: 416,
  POLICY_VIOLATION: 403,
  INVALID_CONFIG: 400,
  CORRUPT_SEGMENT: 500,
  OUT_OF_ORDER_SEQUENCE: 409,
  INVALID_PRODUCER_EPOCH: 409,
  INVALID_TXN_STATE: 409,
  TRANSACTION_COORDINATOR_FENCED: 409,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INTERNAL: 500,
};

export class DataPlaneError extends Error {
  readonly code: DataPlaneErrorCode;
  readonly retriable: boolean;
  /**
   * For a write: true when the request reached a worker and no answer says what became of it (the
   * connection broke or timed out, or the worker failed unexpectedly), so it may have been
   * written; false when it provably was not (never delivered, or refused before the append).
   */
  readonly writeMayHaveHappened: boolean;

  constructor(
    code: DataPlaneErrorCode,
    message: string,
    options?: { retriable?: boolean; cause?: unknown; writeMayHaveHappened?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DataPlaneError";
    this.code = code;
    this.retriable = options?.retriable ?? RETRIABLE.has(code);
    this.writeMayHaveHappened = options?.writeMayHaveHappened ?? false;
  }
}

/**
 * The same failure, marked as one after which the write may be in the log: a produce that failed
 * after its append (its commit refused or cut short, its partition handed over meanwhile), or whose
 * resend failed. Anything else thrown there becomes INTERNAL, keeping it as the cause.
 */
export function writeUncertain(error: unknown): DataPlaneError {
  if (error instanceof DataPlaneError) {
    if (error.writeMayHaveHappened) return error;
    return new DataPlaneError(error.code, error.message, {
      retriable: error.retriable,
      cause: error.cause,
      writeMayHaveHappened: true,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DataPlaneError("INTERNAL", message, { cause: error, writeMayHaveHappened: true });
}

export function isDataPlaneErrorCode(value: unknown): value is DataPlaneErrorCode {
  return typeof value === "string" && (DATA_PLANE_ERROR_CODES as readonly string[]).includes(value);
}
