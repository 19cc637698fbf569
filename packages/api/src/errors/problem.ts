import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { AppError, type AppErrorCode } from "./app-error";
import { databaseUnavailable, isDatabaseUnreachable } from "./database-unavailable";
import { type InputIssue, inputDetail, issuePath } from "./input-issues";
import { isRedisUnreachable, redisUnavailable } from "./redis-unavailable";

/** RFC 9457 problem details, plus our stable `code` and any per-error members. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [member: string]: unknown;
}

const PROBLEM_BASE = "https://lastword.dev/problems/";

// Codes the data plane (and the log store behind it) use, and what they mean to an API caller.
const DATA_PLANE_CODES: Record<string, AppErrorCode> = {
  NOT_OWNER: "PARTITION_UNAVAILABLE",
  PARTITION_UNAVAILABLE: "PARTITION_UNAVAILABLE",
  PARTITION_NOT_FOUND: "PARTITION_UNAVAILABLE",
  INVALID_RECORD: "INVALID_RECORD",
  RECORD_TOO_LARGE: "RECORD_TOO_LARGE",
  OFFSET_OUT_OF_RANGE: "OFFSET_OUT_OF_RANGE",
  POLICY_VIOLATION: "POLICY_VIOLATION",
  INVALID_CONFIG: "INVALID_CONFIG",
  // Only a REST produce names a producer (its Idempotency-Key): a batch the log refuses as out of
  // sequence is another body under a key whose first batch is there.
  OUT_OF_ORDER_SEQUENCE: "IDEMPOTENCY_KEY_REUSED",
  INVALID_PRODUCER_EPOCH: "IDEMPOTENCY_KEY_REUSED",
};

function dataPlaneError(error: unknown): AppError | null {
  if (!(error instanceof Error) || error.name !== "DataPlaneError") return null;
  const code = (error as Error & { code?: unknown }).code;
  const mapped = typeof code === "string" ? DATA_PLANE_CODES[code] : undefined;
  if (!mapped) return null;
  if (mapped === "PARTITION_UNAVAILABLE") {
    // The worker's sentence names internal ids and addresses; callers get a plain one.
    const message = "The partition is moving between workers or starting up; retry shortly.";
    return new AppError(mapped, message, { cause: error, retryAfterSeconds: 1 });
  }
  if (mapped === "IDEMPOTENCY_KEY_REUSED") {
    return new AppError(mapped, "This Idempotency-Key was used for a different request.", { cause: error });
  }
  return new AppError(mapped, error.message, { cause: error });
}

/**
 * Our typed error for anything a service or the data plane threw on purpose, or for a lost
 * database or Redis connection (503 DATABASE_UNAVAILABLE / REDIS_UNAVAILABLE, retriable, rather
 * than a 500); null otherwise.
 */
export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  const fromDataPlane = dataPlaneError(error);
  if (fromDataPlane) return fromDataPlane;
  if (isDatabaseUnreachable(error) || sessionLookupFailed(error)) return databaseUnavailable(error);
  return isRedisUnreachable(error) ? redisUnavailable(error) : null;
}

/**
 * better-auth answers a session lookup whose query threw with its own 500 `FAILED_TO_GET_SESSION`
 * and drops the cause. Sessions live only in Postgres here (no secondary storage), so that is the
 * database failing: a retriable 503 like every other request that needs it.
 */
function sessionLookupFailed(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== "APIError") return false;
  const body = (error as Error & { body?: { code?: unknown } }).body;
  return body?.code === "FAILED_TO_GET_SESSION";
}

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  416: "BAD_REQUEST",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

export function toTrpcError(error: AppError): TRPCError {
  return new TRPCError({
    code: TRPC_CODE_BY_STATUS[error.status] ?? "INTERNAL_SERVER_ERROR",
    message: error.message,
    cause: error,
  });
}

function kebab(code: string): string {
  return code.toLowerCase().replace(/_/g, "-");
}

function problem(
  code: string,
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
): Problem {
  return { type: `${PROBLEM_BASE}${kebab(code)}`, title, status, detail, code, ...extra };
}

function zodIssues(cause: unknown): InputIssue[] | null {
  if (!(cause instanceof Error) || cause.name !== "ZodError") return null;
  const issues = (cause as Error & { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as InputIssue[]) : null;
}

const TITLES: Record<number, string> = {
  400: "Bad request",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  416: "Offset out of range",
  422: "Unprocessable content",
  429: "Too many requests",
  500: "Internal error",
  503: "Service unavailable",
};

/**
 * The one translation from any error a procedure can end with to the problem document clients
 * see (REST body, and `data.problem` of tRPC errors). Unknown errors reveal nothing internal.
 */
export function toProblem(error: unknown): Problem {
  const cause = error instanceof TRPCError ? error.cause : error;
  const app = toAppError(cause);
  if (app) {
    return problem(app.code, app.status, TITLES[app.status] ?? "Error", app.message, app.details);
  }
  const issues = zodIssues(cause);
  if (issues) {
    const errors = issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
    return problem("INVALID_INPUT", 400, TITLES[400]!, inputDetail(issues), { errors });
  }
  if (error instanceof TRPCError) {
    switch (error.code) {
      case "PARSE_ERROR":
        return problem("MALFORMED_REQUEST", 400, TITLES[400]!, "The request body is not valid JSON.");
      case "UNSUPPORTED_MEDIA_TYPE":
        return problem("UNSUPPORTED_MEDIA_TYPE", 415, TITLES[415]!, "Send the body as application/json.");
      case "NOT_FOUND":
        return problem("NOT_FOUND", 404, TITLES[404]!, "No such resource.");
      case "METHOD_NOT_SUPPORTED":
        return problem("METHOD_NOT_ALLOWED", 405, TITLES[405]!, "This method is not allowed here.");
      case "BAD_REQUEST":
        return problem("INVALID_INPUT", 400, TITLES[400]!, error.message);
      case "PAYLOAD_TOO_LARGE":
        return problem("PAYLOAD_TOO_LARGE", 413, TITLES[413]!, "The request body is too large.");
      default:
        break;
    }
  }
  return problem(
    "INTERNAL",
    500,
    TITLES[500]!,
    "Something went wrong on our side; the request may be retried.",
  );
}

export function retryAfterSeconds(error: unknown): number | undefined {
  const cause = error instanceof TRPCError ? error.cause : error;
  return toAppError(cause)?.retryAfterSeconds;
}
