import type { Prisma } from "@lastword/db";
import type { LookupDeps } from "../cache/lookup-cache";
import { AppError } from "../errors/app-error";
import { type TenantQuota, tenantQuota } from "./rate-limit.service";

/**
 * How long a transaction that adds partitions may wait for a connection and then run, the tenant's
 * lock wait included: parallel creates queue behind one another (Prisma's defaults, 2 s and 5 s,
 * would turn a burst of them into 500s).
 */
export const PARTITION_CHANGE_TIMEOUT_MS = 30_000;
export const PARTITION_CHANGE_TRANSACTION = {
  maxWait: PARTITION_CHANGE_TIMEOUT_MS,
  timeout: PARTITION_CHANGE_TIMEOUT_MS,
} as const;

type Reader = Pick<Prisma.TransactionClient, "topic">;

async function checkPartitionQuota(
  reader: Reader,
  quota: Pick<TenantQuota, "maxPartitions">,
  tenantId: string,
  adding: number,
): Promise<void> {
  const used = await reader.topic.aggregate({
    where: { organizationId: tenantId },
    _sum: { partitionCount: true },
  });
  const total = (used._sum.partitionCount ?? 0) + adding;
  if (total > quota.maxPartitions) {
    throw new AppError(
      "QUOTA_EXCEEDED",
      `This would bring the tenant to ${total} partitions; its quota is ${quota.maxPartitions}.`,
      { details: { quota: "partitions", limit: quota.maxPartitions }, retryAfterSeconds: 3600 },
    );
  }
}

/**
 * Whether `adding` partitions would fit the tenant's quota now: the answer for a `validateOnly`
 * request and an early refusal. It reserves nothing; only `reservePartitions` makes a change safe.
 */
export async function assertPartitionQuota(
  deps: LookupDeps,
  tenantId: string,
  adding: number,
): Promise<void> {
  await checkPartitionQuota(deps.prisma, await tenantQuota(deps, tenantId), tenantId, adding);
}

/**
 * Checks the quota inside the transaction that adds the partitions, under a per-tenant advisory
 * lock held until it commits: every create or growth of the tenant's topics (REST, tRPC, Kafka
 * CreateTopics and CreatePartitions all call the topic services) waits for the one before it, so
 * each counts what the others committed and parallel creates cannot pass the quota together.
 * Take it first in the transaction (before the audit chain's lock), as every caller does. `quota`
 * is read before the transaction: a lock holder that needed a second pool connection could wait
 * forever on connections held by the transactions queued behind its lock. `adding` may be a
 * function, read once the lock is held (growth reads the topic's count then).
 */
export async function reservePartitions(
  tx: Prisma.TransactionClient,
  quota: Pick<TenantQuota, "maxPartitions">,
  tenantId: string,
  adding: number | (() => Promise<number>),
): Promise<number> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`partitions:${tenantId}`}, 0))`;
  const count = typeof adding === "number" ? adding : await adding();
  await checkPartitionQuota(tx, quota, tenantId, count);
  return count;
}
