import { createHash } from "node:crypto";
import { canonicalJson } from "@lastword/erasure/audit-chain";
import type { Redis } from "ioredis";
import { AppError } from "../errors/app-error";

/** How long a produce's answer is kept for replays of the same Idempotency-Key. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long an in-flight request holds its key before a crashed attempt frees it. */
const IN_FLIGHT_TTL_SECONDS = 60;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

interface Stored {
  /** `retry`: an attempt failed or was partial and may have written; the next one runs again. */
  state: "pending" | "done" | "retry";
  requestHash: string;
  response?: unknown;
}

export interface IdempotencyDeps {
  redis: Redis;
  redisPrefix: string;
}

/**
 * Runs `work` at most once per (tenant, scope, Idempotency-Key) while its entry lives (24 h): a
 * retry with the same key and the same request gets the first answer back; the same key with a
 * different request is refused. This is the fast path; what makes a produce's retry safe is the
 * log (records/idempotent-producer.ts). So an attempt that failed in a way that may have written,
 * or answered only in part (`complete` false), leaves a `retry` entry: the same request runs
 * again (the log answers what it already holds with the original offsets, and writes the rest),
 * and another request under the key is still refused.
 */
export async function once<T>(
  deps: IdempotencyDeps,
  input: { tenantId: string; scope: string; key: string | null; request: unknown },
  work: () => Promise<T>,
  complete: (response: T) => boolean = () => true,
): Promise<T> {
  if (input.key === null) return work();
  if (input.key.length === 0 || input.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new AppError(
      "INVALID_INPUT",
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
  const digest = createHash("sha256").update(input.key).digest("hex");
  const redisKey = `${deps.redisPrefix}:idem:${input.tenantId}:${input.scope}:${digest}`;
  const requestHash = createHash("sha256").update(canonicalJson(input.request)).digest("hex");
  const pending: Stored = { state: "pending", requestHash };
  const claimed = await deps.redis.set(redisKey, JSON.stringify(pending), "EX", IN_FLIGHT_TTL_SECONDS, "NX");
  if (claimed === null) {
    const existing = JSON.parse((await deps.redis.get(redisKey)) ?? "null") as Stored | null;
    if (!existing) return once(deps, input, work, complete);
    if (existing.requestHash !== requestHash) {
      throw new AppError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used for a different request.");
    }
    if (existing.state === "retry") {
      // Two retries racing both run: the log, not this entry, keeps the write single.
      await deps.redis.set(redisKey, JSON.stringify(pending), "EX", IN_FLIGHT_TTL_SECONDS);
      return attempt(deps, redisKey, requestHash, work, complete);
    }
    if (existing.state === "pending") {
      throw new AppError(
        "IDEMPOTENCY_KEY_IN_PROGRESS",
        "A request with this Idempotency-Key is still running.",
        {
          retryAfterSeconds: 1,
        },
      );
    }
    return existing.response as T;
  }
  return attempt(deps, redisKey, requestHash, work, complete);
}

async function attempt<T>(
  deps: IdempotencyDeps,
  redisKey: string,
  requestHash: string,
  work: () => Promise<T>,
  complete: (response: T) => boolean,
): Promise<T> {
  const retry: Stored = { state: "retry", requestHash };
  try {
    const response = await work();
    const done: Stored = complete(response) ? { state: "done", requestHash, response } : retry;
    await deps.redis.set(redisKey, JSON.stringify(done), "EX", IDEMPOTENCY_TTL_SECONDS);
    return response;
  } catch (error) {
    if (mayHaveWritten(error))
      await deps.redis.set(redisKey, JSON.stringify(retry), "EX", IDEMPOTENCY_TTL_SECONDS);
    else await deps.redis.del(redisKey);
    throw error;
  }
}

function mayHaveWritten(error: unknown): boolean {
  return error instanceof AppError && error.details.writeMayHaveHappened === true;
}
