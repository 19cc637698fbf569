/**
 * Expected failures of the control plane, each with a stable `code` clients switch on and an HTTP
 * status. Services throw these; only errors/problem.ts turns them into tRPC errors and
 * RFC 9457 problem details.
 */
export const APP_ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NO_TENANT: 403,
  TOPIC_NOT_FOUND: 404,
  PARTITION_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  GROUP_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  LAST_OWNER: 409,
  GROUP_NOT_EMPTY: 409,
  TRANSACTION_NOT_OPEN: 409,
  TENANT_CHANGED: 409,
  INVITATION_PENDING: 409,
  NOT_FOUND: 404,
  TOPIC_EXISTS: 409,
  PARTITIONS_FROZEN: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  INVALID_INPUT: 400,
  MALFORMED_REQUEST: 400,
  INVALID_CONFIG: 400,
  INVALID_RECORD: 400,
  INVALID_ENVELOPE: 400,
  OFFSET_OUT_OF_RANGE: 416,
  NULL_KEY_ON_COMPACTED_TOPIC: 422,
  RECORD_TOO_LARGE: 413,
  KEY_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  POLICY_VIOLATION: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  METHOD_NOT_ALLOWED: 405,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  // The schema registry's refusals as the console's tRPC sees them (its HTTP API answers Confluent's bodies).
  SCHEMA_INCOMPATIBLE: 409,
  SCHEMA_INVALID: 422,
  // A search's programmable filter ran past its time or memory, or threw (records/filter-sandbox.ts).
  FILTER_FAILED: 422,
  PARTITION_UNAVAILABLE: 503,
  DATABASE_UNAVAILABLE: 503,
  REDIS_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type AppErrorCode = keyof typeof APP_ERROR_STATUS;

export interface AppErrorOptions {
  /** Extra members of the problem document (e.g. `index` of the offending record). */
  details?: Record<string, unknown>;
  /** Seconds a client should wait before retrying (429 and 503). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: AppErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = APP_ERROR_STATUS[code];
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
