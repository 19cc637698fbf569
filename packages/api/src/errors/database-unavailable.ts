import type { AppError } from "./app-error";
import { storeUnavailable } from "./store-unavailable";

/** What a client is told to wait before retrying a request that needed the unreachable database. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// Prisma's codes for "no answer from the server": cannot reach, timed out, server closed the
// connection, no pool connection in time.
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
// What @prisma/adapter-pg reports (`DriverAdapterError.cause.kind`) for a lost or refused connection.
const ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
// node-postgres throws plain Errors for a socket closed under it and for its own timeouts (the
// adapter passes them on as is): a statement or a new connection that got no answer in time
// (@lastword/db's DATABASE_TIMEOUTS), or no pooled connection free in time.
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^timeout expired/,
  /^Client has encountered a connection error and is not queryable/,
  /^Can't reach database server/,
];

function isUnreachable(error: Record<string, unknown>): boolean {
  const code = error.code;
  if (typeof code === "string") {
    if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception); 57P01-03: the server is shutting down or starting.
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code)) return true;
  }
  if (error.name === "PrismaClientInitializationError") return true;
  // An interactive transaction that got no connection within its maxWait: the pool is held by
  // statements the database does not answer (P2028 also covers a transaction that ran too long).
  if (code === "P2028" && /Unable to start a transaction in the given time/.test(String(error.message))) {
    return true;
  }
  if (error.name === "DriverAdapterError") {
    const kind = (error.cause as { kind?: unknown } | undefined)?.kind;
    if (typeof kind === "string" && ADAPTER_KINDS.has(kind)) return true;
  }
  const message = error.message;
  return typeof message === "string" && PG_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * True when `error` means Postgres could not be reached or dropped the connection (as opposed to
 * refusing a query). Follows `cause` and Prisma's `meta.driverAdapterError`, where Prisma puts the
 * driver's own error. Callers use it to fall back (serve a cached row, spool a counter) or to
 * answer 503 DATABASE_UNAVAILABLE instead of 500.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  return someDatabaseCause(error, isUnreachable);
}

/**
 * True when `test` holds for `error` or any error inside it: its `cause` chain and Prisma's
 * `meta.driverAdapterError`, where Prisma puts the driver's own error (each object once).
 */
export function someDatabaseCause(
  error: unknown,
  test: (error: Record<string, unknown>) => boolean,
): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const next = queue.shift();
    if (typeof next !== "object" || next === null || seen.has(next)) continue;
    seen.add(next);
    const record = next as Record<string, unknown>;
    if (test(record)) return true;
    queue.push(record.cause, (record.meta as Record<string, unknown> | undefined)?.driverAdapterError);
  }
  return false;
}

/** The 503 a request gets when it needs Postgres and Postgres cannot be reached. */
export function databaseUnavailable(cause?: unknown): AppError {
  return storeUnavailable("DATABASE_UNAVAILABLE", "The database", DATABASE_RETRY_AFTER_SECONDS, cause);
}
