import type { PrismaClient } from "@lastword/db";
import type { ChainableCommander, Redis } from "ioredis";
import { cachePerOwner, type LookupDeps } from "../cache/lookup-cache";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";

/**
 * Service-wide defaults; a tenant's Quota row overrides them (its columns default to the same
 * numbers). The capacity limits hold per worker: a worker's Kafka listener admits at most
 * `WORKER_KAFKA_MAX_CONNECTIONS` (10,000) connections, so one tenant's 1,000 cannot fill it.
 */
export const DEFAULT_QUOTA = {
  maxPartitions: 1000,
  maxStoredBytes: 100n * 1024n ** 3n,
  produceBytesPerSecond: 64 * 1024 * 1024,
  requestsPerSecond: 500,
  erasureDeadlineDays: 30,
  maxConnectionsPerWorker: 1000,
  connectionsPerSecond: 100,
  maxBatchInflatedBytes: 16 * 1024 * 1024,
  maxRequestInflatedBytes: 64 * 1024 * 1024,
  maxBatchRecords: 100_000,
  requestTimeMsPerSecond: 250,
  fetchBytesPerSecond: 64 * 1024 * 1024,
  maxTransactionTimeoutMs: 900_000,
} as const;

export interface TenantQuota {
  maxPartitions: number;
  maxStoredBytes: bigint;
  produceBytesPerSecond: number;
  requestsPerSecond: number;
  erasureDeadlineDays: number;
  /** Kafka connections the tenant may hold open to one worker. */
  maxConnectionsPerWorker: number;
  /** Kafka connections the tenant may open (authenticate) on one worker per second. */
  connectionsPerSecond: number;
  /** Bytes one record batch's records may inflate to (a compressed batch's decompressed size). */
  maxBatchInflatedBytes: number;
  /** Bytes the batches of one Produce request may inflate to, all partitions together. */
  maxRequestInflatedBytes: number;
  /** Records one batch may hold. */
  maxBatchRecords: number;
  /**
   * Kafka's request quota (KIP-124), per worker: milliseconds a second the tenant's Kafka requests
   * may keep the worker's event loop busy (its inflate-pool time counted too). 250: a quarter of
   * the loop, so no one tenant can take a worker from the others.
   */
  requestTimeMsPerSecond: number;
  /** Kafka's consumer byte rate, per worker: bytes the tenant's Fetch answers may carry a second. */
  fetchBytesPerSecond: number;
  /**
   * Kafka's transaction.max.timeout.ms for the tenant's transactional producers: a longer
   * transaction.timeout.ms is refused (INVALID_TRANSACTION_TIMEOUT). 15 minutes, Kafka's default.
   */
  maxTransactionTimeoutMs: number;
}

/** The quota as JSON numbers (Postgres keeps the stored-bytes limit as a bigint), every limit named. */
export function quotaView(quota: TenantQuota) {
  return {
    maxPartitions: quota.maxPartitions,
    maxStoredBytes: Number(quota.maxStoredBytes),
    produceBytesPerSecond: quota.produceBytesPerSecond,
    requestsPerSecond: quota.requestsPerSecond,
    erasureDeadlineDays: quota.erasureDeadlineDays,
    maxConnectionsPerWorker: quota.maxConnectionsPerWorker,
    connectionsPerSecond: quota.connectionsPerSecond,
    maxBatchInflatedBytes: quota.maxBatchInflatedBytes,
    maxRequestInflatedBytes: quota.maxRequestInflatedBytes,
    maxBatchRecords: quota.maxBatchRecords,
    requestTimeMsPerSecond: quota.requestTimeMsPerSecond,
    fetchBytesPerSecond: quota.fetchBytesPerSecond,
    maxTransactionTimeoutMs: quota.maxTransactionTimeoutMs,
  };
}

/**
 * How long a tenant's quota is reused per process: every request reads it (request rate, produce
 * admission), and it changes rarely; a change made elsewhere takes effect within this.
 */
export const QUOTA_CACHE_MS = 500;
const quotas = cachePerOwner<TenantQuota>({ ttlMs: QUOTA_CACHE_MS });

/**
 * The tenant's Quota row, or the defaults when it has none (a value like any other, so it is also
 * served while Postgres is unreachable, within STALE_IF_UNREACHABLE_MS of the last read).
 */
export async function tenantQuota(deps: LookupDeps, tenantId: string): Promise<TenantQuota> {
  return quotas.of(deps.prisma, deps.clock).get(tenantId, async (): Promise<TenantQuota> => {
    const row = await deps.prisma.quota.findUnique({ where: { organizationId: tenantId } });
    return row ?? { ...DEFAULT_QUOTA };
  });
}

/** Whoever changes a Quota row through `prisma` calls this, so this process applies it at once. */
export function forgetTenantQuota(prisma: PrismaClient, tenantId: string): void {
  quotas.existing(prisma)?.forget(tenantId);
}

const WINDOW_MS = 1000;

/** The metric the produce admission (REST) and the Kafka produce throttle count bytes under. */
export const PRODUCE_BYTES_METRIC = "produce bytes";

/**
 * Kafka's longest throttle (its default quota window of 1 s times 11 samples): a burst far over the
 * quota is slowed for at most this long per response, as a Kafka broker would.
 */
export const MAX_THROTTLE_MS = 11_000;

/**
 * One Redis counter per tenant, metric and one-second window, added to with INCRBY then PEXPIRE
 * (atomic in a MULTI). Callers queue this on a MULTI they may extend, and check the answer with
 * `assertWithinRate` once the tenant's quota is known (looked up at the same time, not before).
 */
export function countInWindow(
  multi: ChainableCommander,
  deps: { redisPrefix: string },
  window: RateWindow,
  amount: number,
): ChainableCommander {
  const key = `${deps.redisPrefix}:rate:${window.tenantId}:${window.metric}:${window.index}`;
  return multi.incrby(key, amount).pexpire(key, WINDOW_MS * 2);
}

export interface RateWindow {
  tenantId: string;
  metric: string;
  /** The one-second window, from the clock when the request was counted. */
  index: number;
  now: number;
}

export function rateWindow(clock: Clock, tenantId: string, metric: string): RateWindow {
  const now = clock.now();
  return { tenantId, metric, index: Math.floor(now / WINDOW_MS), now };
}

/**
 * How long a client that used `used` of a per-second `limit` must wait until it is back under it,
 * as Kafka computes a quota's throttle time: the excess over the limit, drained at the limit's
 * rate ((used − limit) / limit × window), bounded by MAX_THROTTLE_MS. 0 when within the limit.
 */
export function throttleMsOver(used: number, limit: number): number {
  if (used <= limit) return 0;
  if (limit <= 0) return MAX_THROTTLE_MS;
  return Math.min(MAX_THROTTLE_MS, Math.ceil(((used - limit) / limit) * WINDOW_MS));
}

export function assertWithinRate(window: RateWindow, used: number, limit: number): void {
  if (used > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil(((window.index + 1) * WINDOW_MS - window.now) / 1000));
    throw new AppError(
      "RATE_LIMITED",
      `The tenant's ${window.metric} limit of ${limit} per second is used up.`,
      {
        retryAfterSeconds,
        details: { metric: window.metric, limit },
      },
    );
  }
}

/**
 * A request whose count a procedure adds to its own Redis MULTI (produce admission) instead of the
 * access middleware sending one of its own first: one round trip per produce, not two. Made by the
 * middleware (trpc/access.ts) for procedures that opt in, handed to the procedure's service through
 * the request's identity, and settled by the middleware once the procedure is done.
 */
export interface DeferredRequestCount {
  readonly tenantId: string;
  /** Set when the count was queued: the window it went into and the count it answered. */
  counted: { window: RateWindow; used: Promise<number> } | null;
}

// Keyed by the request's identity object (built per request), so services keep their signatures.
const deferredCounts = new WeakMap<object, DeferredRequestCount>();

export function deferRequestCount(identity: { tenantId: string }): DeferredRequestCount {
  const deferred: DeferredRequestCount = { tenantId: identity.tenantId, counted: null };
  deferredCounts.set(identity, deferred);
  return deferred;
}

/**
 * The request count this identity's procedure should add to its MULTI, or null when the middleware
 * counted the request already. Taken once: whoever takes it must count it (`countDeferredRequest`).
 */
export function takeDeferredRequestCount(identity: object): DeferredRequestCount | null {
  const deferred = deferredCounts.get(identity) ?? null;
  if (deferred?.counted !== null) return null;
  return deferred;
}

/**
 * Queues the deferred request's count on `multi` (INCRBY and PEXPIRE, after what is queued on it
 * already); `read` is then given the MULTI's answers and picks the count out of them, which the
 * procedure checks before it writes and the settling middleware checks again.
 */
export function countDeferredRequest(
  multi: ChainableCommander,
  deps: { redisPrefix: string; clock: Clock },
  deferred: DeferredRequestCount,
): { window: RateWindow; read(used: Promise<number>): Promise<number> } {
  const window = rateWindow(deps.clock, deferred.tenantId, "requests");
  countInWindow(multi, deps, window, 1);
  return {
    window,
    read(used) {
      // Awaited by the middleware after the procedure; handled here so a Redis failure the
      // procedure reports itself is not also an unhandled rejection meanwhile.
      used.catch(() => {});
      deferred.counted = { window, used };
      return used;
    },
  };
}

/**
 * After the procedure: a deferred request it did not count (it failed first, or answered from the
 * idempotency store) is counted now, and a request over the tenant's rate is RATE_LIMITED whatever
 * the procedure answered, as when the middleware checks first (`succeeded`: the procedure's
 * answer was not an error). Nothing was written over the limit: the procedure checks the same
 * count before its write.
 */
export async function settleDeferredRequestCount(
  deps: { prisma: PrismaClient; redis: Redis; redisPrefix: string; clock: Clock },
  deferred: DeferredRequestCount,
  succeeded: boolean,
): Promise<void> {
  if (deferred.counted === null) {
    await enforceRequestRate(deps, deferred.tenantId);
    return;
  }
  // A procedure that counted the request and succeeded checked the rate before it wrote; checking
  // again against a quota refreshed meanwhile could refuse a produce that was written.
  if (succeeded) return;
  const { window, used } = deferred.counted;
  const [quota, count] = await Promise.all([tenantQuota(deps, deferred.tenantId), used]);
  assertWithinRate(window, count, quota.requestsPerSecond);
}

/** Counts the request and reads the quota concurrently: one round trip of wall time, not two. */
export async function enforceRequestRate(
  deps: { prisma: PrismaClient; redis: Redis; redisPrefix: string; clock: Clock },
  tenantId: string,
): Promise<void> {
  const window = rateWindow(deps.clock, tenantId, "requests");
  const [quota, result] = await Promise.all([
    tenantQuota(deps, tenantId),
    countInWindow(deps.redis.multi(), deps, window, 1).exec(),
  ]);
  assertWithinRate(window, Number(result?.[0]?.[1] ?? 0), quota.requestsPerSecond);
}
