import type { PrismaClient } from "@lastword/db";
import type { Redis } from "ioredis";
import { AppError } from "../errors/app-error";
import type { Clock } from "../trpc/context";

/** Service-wide defaults; a tenant's Quota row overrides them. */
export const DEFAULT_QUOTA = {
  maxPartitions: 1000,
  maxStoredBytes: 100n * 1024n ** 3n,
  produceBytesPerSecond: 64 * 1024 * 1024,
  requestsPerSecond: 500,
  erasureDeadlineDays: 30,
} as const;

export interface TenantQuota {
  maxPartitions: number;
  maxStoredBytes: bigint;
  produceBytesPerSecond: number;
  requestsPerSecond: number;
  erasureDeadlineDays: number;
}

export async function tenantQuota(prisma: PrismaClient, tenantId: string): Promise<TenantQuota> {
  const row = await prisma.quota.findUnique({ where: { organizationId: tenantId } });
  return row ?? { ...DEFAULT_QUOTA };
}

const WINDOW_MS = 1000;

// One Redis counter per tenant, metric and one-second window: INCRBY then PEXPIRE, atomic in MULTI.
async function consume(
  deps: { redis: Redis; redisPrefix: string; clock: Clock },
  tenantId: string,
  metric: string,
  amount: number,
  limit: number,
): Promise<void> {
  const now = deps.clock.now();
  const window = Math.floor(now / WINDOW_MS);
  const key = `${deps.redisPrefix}:rate:${tenantId}:${metric}:${window}`;
  const result = await deps.redis
    .multi()
    .incrby(key, amount)
    .pexpire(key, WINDOW_MS * 2)
    .exec();
  const used = Number(result?.[0]?.[1] ?? 0);
  if (used > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    throw new AppError("RATE_LIMITED", `The tenant's ${metric} limit of ${limit} per second is used up.`, {
      retryAfterSeconds,
      details: { metric, limit },
    });
  }
}

export async function enforceRequestRate(
  deps: { prisma: PrismaClient; redis: Redis; redisPrefix: string; clock: Clock },
  tenantId: string,
): Promise<void> {
  const quota = await tenantQuota(deps.prisma, tenantId);
  await consume(deps, tenantId, "requests", 1, quota.requestsPerSecond);
}

export async function enforceProduceBytes(
  deps: { prisma: PrismaClient; redis: Redis; redisPrefix: string; clock: Clock },
  tenantId: string,
  bytes: number,
): Promise<void> {
  const quota = await tenantQuota(deps.prisma, tenantId);
  await consume(deps, tenantId, "produce bytes", bytes, quota.produceBytesPerSecond);
}
