import { Prisma } from "@lastword/db";
import { DB_NOW, dbInterval, LeaseHolder } from "../../ownership/lease-holder";

/** Who coordinates a group right now, as the KafkaGroup row says. */
export interface GroupLeaseHolder {
  ownerWorkerId: string | null;
  epoch: number;
  /** The lease is unexpired on the database clock. */
  live: boolean;
}

export interface HeldGroupLease {
  tenantId: string;
  groupId: string;
  epoch: number;
}

/**
 * The coordinator lease on a (tenant, group id), the KafkaGroup table. A worker asked to find a
 * group's coordinator claims the group when nobody holds a live lease (bumping the epoch); the
 * holder renews all its leases together; a dead holder's leases expire and the next worker asked
 * takes them over.
 */
export class GroupLeaseRepository extends LeaseHolder {
  /** Claims the group if it is free or its lease expired; answers the holder either way. */
  async claimOrFind(tenantId: string, groupId: string): Promise<GroupLeaseHolder> {
    const claimed = await this.prisma.$queryRaw<{ ownerWorkerId: string; epoch: number }[]>`
      INSERT INTO "KafkaGroup" ("organizationId", "groupId", "ownerWorkerId", "epoch", "leaseExpiresAt")
      VALUES (${tenantId}, ${groupId}, ${this.workerId}, 1, ${DB_NOW} + ${dbInterval(this.ttlMs)})
      ON CONFLICT ("organizationId", "groupId") DO UPDATE
        SET "ownerWorkerId" = EXCLUDED."ownerWorkerId", "epoch" = "KafkaGroup"."epoch" + 1,
            "leaseExpiresAt" = EXCLUDED."leaseExpiresAt"
        WHERE "KafkaGroup"."ownerWorkerId" IS NULL OR "KafkaGroup"."leaseExpiresAt" IS NULL
           OR "KafkaGroup"."leaseExpiresAt" <= ${DB_NOW}
      RETURNING "ownerWorkerId", "epoch"`;
    if (claimed[0]) return { ...claimed[0], live: true };
    const rows = await this.prisma.$queryRaw<
      { ownerWorkerId: string | null; epoch: number; live: boolean }[]
    >`
      SELECT "ownerWorkerId", "epoch", ("leaseExpiresAt" > ${DB_NOW}) AS "live" FROM "KafkaGroup"
      WHERE "organizationId" = ${tenantId} AND "groupId" = ${groupId}`;
    return rows[0] ?? { ownerWorkerId: null, epoch: 0, live: false };
  }

  /**
   * Extends every lease this worker holds. A lease another worker took over is no longer ours
   * (owner changed), so it is not returned; the caller drops those groups.
   */
  async renewAll(): Promise<HeldGroupLease[]> {
    const rows = await this.prisma.$queryRaw<{ organizationId: string; groupId: string; epoch: number }[]>`
      UPDATE "KafkaGroup" SET "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      WHERE "ownerWorkerId" = ${this.workerId}
      RETURNING "organizationId", "groupId", "epoch"`;
    return rows.map((r) => ({ tenantId: r.organizationId, groupId: r.groupId, epoch: r.epoch }));
  }

  /**
   * Takes over up to `limit` leases a dead holder left to expire (a released lease has no owner
   * and waits for a client to ask), so a dead worker's groups move within a lease TTL plus one
   * renewal period even before any client asks.
   */
  async claimExpired(limit: number): Promise<HeldGroupLease[]> {
    const rows = await this.prisma.$queryRaw<{ organizationId: string; groupId: string; epoch: number }[]>`
      UPDATE "KafkaGroup" k SET "ownerWorkerId" = ${this.workerId}, "epoch" = k."epoch" + 1,
             "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      FROM (SELECT "organizationId", "groupId" FROM "KafkaGroup"
            WHERE "ownerWorkerId" IS NOT NULL AND "leaseExpiresAt" <= ${DB_NOW}
            ORDER BY "leaseExpiresAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
      WHERE k."organizationId" = due."organizationId" AND k."groupId" = due."groupId"
      RETURNING k."organizationId", k."groupId", k."epoch"`;
    return rows.map((r) => ({ tenantId: r.organizationId, groupId: r.groupId, epoch: r.epoch }));
  }

  /** On a graceful stop: the groups are free at once for the next worker a client asks. */
  async releaseAll(): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE "KafkaGroup" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = NULL
      WHERE "ownerWorkerId" = ${this.workerId}`;
  }

  /** Gives up these leases (idle groups) if still held at the same epoch. */
  async release(leases: readonly HeldGroupLease[]): Promise<void> {
    if (leases.length === 0) return;
    const keys = Prisma.join(leases.map((l) => Prisma.sql`(${l.tenantId}, ${l.groupId}, ${l.epoch}::int)`));
    await this.prisma.$executeRaw`
      UPDATE "KafkaGroup" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = NULL
      WHERE "ownerWorkerId" = ${this.workerId}
        AND ("organizationId", "groupId", "epoch") IN (${keys})`;
  }

  /**
   * Deletes the rows whose lease lapsed (released, or expired) of groups with no committed offsets:
   * nothing is lost, and the next FindCoordinator for such a group id creates the row again.
   */
  async deleteLapsedWithoutOffsets(): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM "KafkaGroup" k
      WHERE (k."ownerWorkerId" IS NULL OR k."leaseExpiresAt" IS NULL OR k."leaseExpiresAt" <= ${DB_NOW})
        AND NOT EXISTS (SELECT 1 FROM "ConsumerGroup" g
                        WHERE g."organizationId" = k."organizationId" AND g."name" = k."groupId")`;
  }

  /** The tenant's groups that no live lease covers (listed by one broker, see list-groups-handler). */
  async unleasedGroupNames(tenantId: string): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ name: string }[]>`
      SELECT g."name" FROM "ConsumerGroup" g
      LEFT JOIN "KafkaGroup" k ON k."organizationId" = g."organizationId" AND k."groupId" = g."name"
        AND k."ownerWorkerId" IS NOT NULL AND k."leaseExpiresAt" > ${DB_NOW}
      WHERE g."organizationId" = ${tenantId} AND k."groupId" IS NULL
      ORDER BY g."name"`;
    return rows.map((r) => r.name);
  }
}
