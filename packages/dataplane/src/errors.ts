/**
 * Stable codes callers switch on. NOT_OWNER and PARTITION_UNAVAILABLE are retriable; the log store's
 * own codes pass through unchanged so the control plane can translate them in one place.
 */
export const DATA_PLANE_ERROR_CODES = [
  "NOT_OWNER",
  "PARTITION_UNAVAILABLE",
  "PARTITION_NOT_FOUND",
  "INVALID_RECORD",
  "RECORD_TOO_LARGE",
  "OFFSET_OUT_OF_RANGE",
  "POLICY_VIOLATION",
  "INVALID_CONFIG",
  "CORRUPT_SEGMENT",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "INTERNAL",
] as const;

export type DataPlaneErrorCode = (typeof DATA_PLANE_ERROR_CODES)[number];

const RETRIABLE: ReadonlySet<DataPlaneErrorCode> = new Set(["NOT_OWNER", "PARTITION_UNAVAILABLE"]);

/** The HTTP status a worker answers with for each code; the client maps bodies back by `code`, not status. */
export const HTTP_STATUS_BY_CODE: Record<DataPlaneErrorCode, number> = {
  NOT_OWNER: 409,
  PARTITION_UNAVAILABLE: 503,
  PARTITION_NOT_FOUND: 404,
  INVALID_RECORD: 400,
  RECORD_TOO_LARGE: 413,
  OFFSET_OUT_OF_RANGE: 416,
  POLICY_VIOLATION: 403,
  INVALID_CONFIG: 400,
  CORRUPT_SEGMENT: 500,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INTERNAL: 500,
};

export class DataPlaneError extends Error {
  readonly code: DataPlaneErrorCode;
  readonly retriable: boolean;

  constructor(code: DataPlaneErrorCode, message: string, options?: { retriable?: boolean; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DataPlaneError";
    this.code = code;
    this.retriable = options?.retriable ?? RETRIABLE.has(code);
  }
}

export function isDataPlaneErrorCode(value: unknown): value is DataPlaneErrorCode {
  return typeof value === "string" && (DATA_PLANE_ERROR_CODES as readonly string[]).includes(value);
}
