import type { Redis } from "ioredis";
import type { AppError } from "./app-error";
import { storeUnavailable } from "./store-unavailable";

/** What a client is told to wait before retrying a request that needed the unreachable Redis. */
export const REDIS_RETRY_AFTER_SECONDS = 5;

// What ioredis rejects a command with while it has no connection: the offline queue gave up after
// `maxRetriesPerRequest` reconnection attempts, the connection closed under the command, (with
// the offline queue off) there was no connection to write to, or no answer came within
// `commandTimeout` (a Redis that stopped answering on a connection still open).
const IOREDIS_NAMES = new Set(["MaxRetriesPerRequestError"]);
const IOREDIS_MESSAGES = [/^Connection is closed\.$/, /^Stream isn't writeable/, /^Command timed out$/];

/**
 * How the web process's Redis client is built (apps/web): a command gives up after 3 reconnects
 * (~0.3 s while Redis refuses connections) or 2 s without an answer (Redis, or the network to it,
 * silent), so a request that needs Redis answers 503 in seconds instead of waiting on it.
 * Nothing the API sends Redis blocks (no BLPOP/XREAD), so 2 s is never a healthy command's time.
 */
export const REDIS_CLIENT_OPTIONS = { maxRetriesPerRequest: 3, commandTimeout: 2_000 } as const;

/** True when `error` (or its `cause`) is ioredis saying Redis cannot be reached, not refusing a command. */
export function isRedisUnreachable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let next = error; typeof next === "object" && next !== null && !seen.has(next); ) {
    seen.add(next);
    const record = next as { name?: unknown; message?: unknown; cause?: unknown };
    if (typeof record.name === "string" && IOREDIS_NAMES.has(record.name)) return true;
    const message = record.message;
    if (typeof message === "string" && IOREDIS_MESSAGES.some((pattern) => pattern.test(message))) return true;
    next = record.cause;
  }
  return false;
}

/** The 503 a request gets when it needs Redis (rate counters, Idempotency-Key dedupe) and Redis is down. */
export function redisUnavailable(cause?: unknown): AppError {
  return storeUnavailable(
    "REDIS_UNAVAILABLE",
    "The rate and idempotency store",
    REDIS_RETRY_AFTER_SECONDS,
    cause,
  );
}

const watched = new WeakSet<Redis>();

/**
 * Handles the client's connection errors. Without an `error` listener ioredis prints every failed
 * reconnection attempt as "Unhandled error event" (several a second during an outage); with it,
 * one line says Redis went away and one that it is back (requests meanwhile answer 503).
 */
export function watchRedisConnection(
  redis: Redis,
  logger: { error(fields: Record<string, unknown>, message: string): void },
): void {
  // Once per client: several servers in one process (tests, a second web process) may share it.
  if (watched.has(redis)) return;
  watched.add(redis);
  let down = false;
  redis.on("error", (error: unknown) => {
    if (down) return;
    down = true;
    logger.error({ err: error }, "redis unreachable: requests that need it answer 503 until it is back");
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.error({}, "redis reachable again");
  });
}
