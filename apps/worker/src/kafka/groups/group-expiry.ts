import type { PrismaClient } from "@lastword/db";
import { DB_NOW, dbInterval } from "../../ownership/lease-holder";

/** Kafka's `offsets.retention.minutes` default: 7 days. */
export const DEFAULT_OFFSETS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** What one expiry pass removed. */
export interface ExpiredGroups {
  offsets: number;
  groups: number;
  leases: number;
}

/**
 * Kafka's offset and group expiry for groups this coordinator knows (a KafkaGroup row): once a
 * group is empty — no live coordinator lease, which a group with members always has, since only
 * idle groups are released — its offsets expire `retentionMs` after both the group became empty
 * (the lease lapsed) and the offset was committed (KIP-211: an empty group's offsets expire a
 * retention after it emptied; a standalone commit's a retention after the commit). A group left
 * with no offsets is removed (Kafka's Dead), with its lag samples, and so is its lease row. Commit
 * times are on the worker clock that stamped them (`nowMs`), lease times on the database clock.
 * The REST API's consumer groups (no KafkaGroup row) are not touched.
 */
export async function expireEmptyGroups(
  prisma: PrismaClient,
  nowMs: number,
  retentionMs = DEFAULT_OFFSETS_RETENTION_MS,
): Promise<ExpiredGroups> {
  const committedBefore = new Date(nowMs - retentionMs);
  return prisma.$transaction(async (tx) => {
    const offsets = await tx.$executeRaw`
      DELETE FROM "ConsumerGroupOffset" o USING "ConsumerGroup" g, "KafkaGroup" k
      WHERE o."groupId" = g."id" AND k."organizationId" = g."organizationId" AND k."groupId" = g."name"
        AND (k."leaseExpiresAt" IS NULL OR k."leaseExpiresAt" <= ${DB_NOW} - ${dbInterval(retentionMs)})
        AND o."committedAt" <= ${committedBefore}`;
    const groups = await tx.$executeRaw`
      DELETE FROM "ConsumerGroup" g USING "KafkaGroup" k
      WHERE k."organizationId" = g."organizationId" AND k."groupId" = g."name"
        AND (k."leaseExpiresAt" IS NULL OR k."leaseExpiresAt" <= ${DB_NOW} - ${dbInterval(retentionMs)})
        AND NOT EXISTS (SELECT 1 FROM "ConsumerGroupOffset" o WHERE o."groupId" = g."id")`;
    // The lease row of an expired group, and of any group empty a retention without offsets.
    const leases = await tx.$executeRaw`
      DELETE FROM "KafkaGroup" k
      WHERE (k."leaseExpiresAt" IS NULL OR k."leaseExpiresAt" <= ${DB_NOW} - ${dbInterval(retentionMs)})
        AND NOT EXISTS (SELECT 1 FROM "ConsumerGroup" g
                        WHERE g."organizationId" = k."organizationId" AND g."name" = k."groupId")`;
    return { offsets, groups, leases };
  });
}
