import type { PrismaClient } from "@lastword/db";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { AppError } from "../errors/app-error";
import { isDatabaseUnreachable } from "../errors/database-unavailable";
import type { Clock } from "./api-deps";
import { perOwner } from "./per-owner";
import {
  assertWithinRate,
  countDeferredRequest,
  countInWindow,
  type DeferredRequestCount,
  PRODUCE_BYTES_METRIC,
  quotaView,
  rateWindow,
  type TenantQuota,
  tenantQuota,
} from "./rate-limit.service";
import { utcDay } from "./usage-counter";
import { usageSpool } from "./usage-spool";

export interface UsageDeps {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  clock: Clock;
}

/** How long a tenant's stored-bytes total is reused before it is summed again. */
export const STORED_BYTES_CACHE_SECONDS = 10;

/** Sum of the partitions' sizes as their owning workers last reported them (Partition.stats). */
async function sumStoredBytes(prisma: PrismaClient, tenantId: string): Promise<bigint> {
  const rows = await prisma.$queryRaw<{ total: bigint | null }[]>`
    SELECT SUM(("stats"->>'sizeBytes')::bigint)::bigint AS total
    FROM "Partition" p JOIN "Topic" t ON t."id" = p."topicId"
    WHERE t."organizationId" = ${tenantId} AND p."stats" ? 'sizeBytes'`;
  return rows[0]?.total ?? 0n;
}

function storedKey(deps: { redisPrefix: string }, tenantId: string): string {
  return `${deps.redisPrefix}:stored:${tenantId}`;
}

// The last total each tenant was summed to in this process, for when Postgres cannot be asked.
const rememberedTotals = perOwner(() => new LRUCache<string, bigint>({ max: 10_000 }));

/**
 * Sums and caches the tenant's stored total. While Postgres is unreachable the last total this
 * process summed stands in (cached again, so the sum is not retried per request); a tenant it never
 * summed is admitted. The workers' size reports reach Postgres only, so no fresher total exists
 * during an outage anyway.
 */
async function sumAndCacheStoredBytes(deps: UsageDeps, tenantId: string): Promise<bigint> {
  const remembered = rememberedTotals(deps.prisma);
  let total: bigint;
  try {
    total = await sumStoredBytes(deps.prisma, tenantId);
  } catch (error) {
    if (!isDatabaseUnreachable(error)) throw error;
    const last = remembered.get(tenantId);
    if (last === undefined) return 0n;
    total = last;
  }
  remembered.set(tenantId, total);
  await deps.redis.set(storedKey(deps, tenantId), total.toString(), "EX", STORED_BYTES_CACHE_SECONDS);
  return total;
}

/** Refuses writes once the tenant stores more than its quota (deletes and compaction free room). */
function assertStorageQuota(quota: TenantQuota, used: bigint): void {
  if (used >= quota.maxStoredBytes) {
    throw new AppError(
      "QUOTA_EXCEEDED",
      `The tenant stores ${used} bytes; its quota is ${quota.maxStoredBytes}. Delete topics or records, or lower retention.`,
      { details: { quota: "storedBytes", limit: Number(quota.maxStoredBytes) }, retryAfterSeconds: 60 },
    );
  }
}

/**
 * Admits `bytes` of produce for the tenant: the storage quota and the produce-bytes rate, and the
 * request rate when the access middleware left the request for this MULTI to count (`request`,
 * services/rate-limit.service.ts: one Redis round trip per produce instead of two). The quota row
 * and one Redis MULTI (count the bytes in this second's window, read the cached stored total, count
 * the request) go out together, so the check costs one round trip of wall time; only a stored-total
 * cache miss (every STORED_BYTES_CACHE_SECONDS) adds the sum over the tenant's partitions. Every
 * limit is checked on that one answer before the caller writes anything.
 */
export async function admitProduce(
  deps: UsageDeps,
  tenantId: string,
  bytes: number,
  request: DeferredRequestCount | null = null,
): Promise<void> {
  const window = rateWindow(deps.clock, tenantId, PRODUCE_BYTES_METRIC);
  const multi = countInWindow(deps.redis.multi(), deps, window, bytes).get(storedKey(deps, tenantId));
  // Queued after INCRBY, PEXPIRE and GET: its INCRBY answers at index 3.
  const counting = request ? countDeferredRequest(multi, deps, request) : null;
  const exec = multi.exec();
  const requests = counting?.read(exec.then((answers) => Number(answers?.[3]?.[1] ?? 0)));
  const [quota, answers] = await Promise.all([tenantQuota(deps, tenantId), exec]);
  // The request rate first, as when the middleware counts the request before the procedure runs.
  if (counting && requests) assertWithinRate(counting.window, await requests, quota.requestsPerSecond);
  const cached = answers?.[2]?.[1] as string | null | undefined;
  const stored = typeof cached === "string" ? BigInt(cached) : await sumAndCacheStoredBytes(deps, tenantId);
  assertStorageQuota(quota, stored);
  assertWithinRate(window, Number(answers?.[0]?.[1] ?? 0), quota.produceBytesPerSecond);
}

export async function tenantUsage(deps: UsageDeps, tenantId: string) {
  // What this process acknowledged is in the answer (other processes' last ≤ USAGE_FLUSH_DELAY_MS are not).
  await usageSpool(deps.prisma).flush();
  const day = utcDay(deps.clock.now());
  const [quota, stored, partitions, counters] = await Promise.all([
    tenantQuota(deps, tenantId),
    sumStoredBytes(deps.prisma, tenantId),
    deps.prisma.topic.aggregate({ where: { organizationId: tenantId }, _sum: { partitionCount: true } }),
    deps.prisma.usageCounter.findMany({ where: { organizationId: tenantId, day } }),
  ]);
  return {
    quota: quotaView(quota),
    partitions: partitions._sum.partitionCount ?? 0,
    storedBytes: Number(stored),
    today: Object.fromEntries(counters.map((c) => [c.metric, Number(c.value)])),
  };
}
