import type { PrismaClient } from "@lastword/db";
import { DB_NOW, dbInterval } from "./lease-holder";

/**
 * How long a worker row outlives its last heartbeat. A worker id is random per run unless
 * WORKER_ID is set, so every restart adds a row; a week keeps a broker's node id stable across any
 * realistic outage of a fixed id, and the console's recent history.
 */
export const GONE_WORKER_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes the rows of workers unheard of (heartbeat, on the database clock) for `keepMs` that
 * nothing names any more: no partition lease, no group lease, no copy an erasure's proof waits
 * for (PartitionCache). A worker that comes back under the same id registers a new row.
 */
export async function deleteGoneWorkers(prisma: PrismaClient, keepMs = GONE_WORKER_KEEP_MS): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM "Worker" w
    WHERE w."heartbeatAt" <= ${DB_NOW} - ${dbInterval(keepMs)}
      AND NOT EXISTS (SELECT 1 FROM "Partition" p WHERE p."ownerWorkerId" = w."id")
      AND NOT EXISTS (SELECT 1 FROM "KafkaGroup" k WHERE k."ownerWorkerId" = w."id")
      AND NOT EXISTS (SELECT 1 FROM "PartitionCache" c WHERE c."workerId" = w."id")`;
}
