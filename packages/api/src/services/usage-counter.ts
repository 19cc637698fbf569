import type { PrismaClient } from "@lastword/db";
import type { Clock } from "./api-deps";
import { usageSpool } from "./usage-spool";

/**
 * The tenant's per-UTC-day counters (UsageCounter rows, `tenant.usage`'s `today`): what the REST
 * API produced (records and bytes of the keys, values and headers), what Kafka Produce appended
 * (the record batches' inflated bytes, as the produce quota charges them: a different measure from
 * REST's, so a metric of its own) and what Kafka Fetch answers carried (the record batches' bytes,
 * as the fetch quota counts them). The web and the workers count through this one module, so both
 * write the same rows under the same names.
 */
export type UsageMetric = "producedRecords" | "producedBytes" | "kafkaProducedBytes" | "fetchedBytes";

export function utcDay(ms: number): Date {
  return new Date(Math.floor(ms / 86_400_000) * 86_400_000);
}

/**
 * Adds to today's durable counters (a negative count takes back) through the process's usage
 * spool (services/usage-spool.ts): written within USAGE_FLUSH_DELAY_MS, shared with the requests
 * around it, or when Postgres returns. Nothing to wait for: usage never fails or holds up a request.
 * (Returns a settled promise so callers written for the awaited counter keep working.)
 */
export function recordUsage(
  deps: { prisma: PrismaClient; clock: Clock },
  tenantId: string,
  counts: Partial<Record<UsageMetric, number>>,
): Promise<void> {
  const day = utcDay(deps.clock.now());
  const rows = Object.entries(counts)
    .filter(([, n]) => n !== undefined && n !== 0)
    .map(([metric, n]) => ({ tenantId, metric, day, value: BigInt(n as number) }));
  if (rows.length > 0) usageSpool(deps.prisma).add(rows);
  return Promise.resolve();
}

/**
 * Writes this process's spooled usage now (graceful shutdown; tests that read UsageCounter
 * directly); true when nothing is left unwritten.
 */
export function flushUsage(prisma: PrismaClient, timeoutMs?: number): Promise<boolean> {
  return usageSpool(prisma).drain(timeoutMs);
}
