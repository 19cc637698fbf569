import type { PrismaClient } from "@lastword/db";
import { DB_NOW } from "../../ownership/lease-holder";

/** How often CreateTopics looks again for the new partitions' leaders while it waits. */
export const LEADER_POLL_INTERVAL_MS = 50;

/**
 * Waits until every partition of the topic has a leader as Metadata names them (a live lease held
 * by a running worker with a Kafka listener), so a client that creates a topic and at once produces
 * to it finds leaders instead of LEADER_NOT_AVAILABLE. False once `deadlineMs` (this process's
 * clock) passed first. Reads the topic's own rows, not the catalog, whose cache serves every tenant.
 */
export async function leadersReady(
  prisma: PrismaClient,
  topicId: string,
  partitions: number,
  deadlineMs: number,
): Promise<boolean> {
  for (;;) {
    const rows = await prisma.$queryRaw<{ led: bigint }[]>`
      SELECT count(*) AS "led" FROM "Partition" p JOIN "Worker" w ON w."id" = p."ownerWorkerId"
      WHERE p."topicId" = ${topicId} AND p."leaseExpiresAt" > ${DB_NOW}
        AND w."stoppedAt" IS NULL AND w."kafkaHost" IS NOT NULL`;
    if (Number(rows[0]?.led ?? 0) >= partitions) return true;
    if (Date.now() + LEADER_POLL_INTERVAL_MS > deadlineMs) return false;
    await new Promise((resolve) => setTimeout(resolve, LEADER_POLL_INTERVAL_MS));
  }
}
