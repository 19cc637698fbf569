import { Prisma } from "@lastword/db";
import { DB_NOW, dbInterval, LeaseHolder, type LeaseKey } from "../../ownership/lease-holder";
import { ENDED_SESSIONS } from "../../ownership/worker-session";

/** Who coordinates a group right now, as the KafkaGroup row says. */
export interface GroupLeaseHolder {
  ownerWorkerId: string | null;
  epoch: number;
  /** The last generation handed out: a new holder's first rebalance makes the one after it. */
  generation: number;
  /** The lease is unexpired on the database clock. */
  live: boolean;
}

export interface HeldGroupLease {
  tenantId: string;
  groupId: string;
  epoch: number;
}

/** A lease just claimed, with the group's last generation. */
export interface AdoptedGroupLease extends HeldGroupLease {
  generation: number;
}

const GROUP_LEASE: LeaseKey = { table: "KafkaGroup", keyColumn: "groupId" };

/**
 * The coordinator lease on a (tenant, group id), the KafkaGroup table. A worker asked to find a
 * group's coordinator claims the group when nobody holds a live lease (bumping the epoch); the
 * holder renews all its leases together; a dead holder's leases expire and the next worker asked
 * takes them over. The row also carries the group's last generation, so numbering survives a move.
 *
 * A released or expired row of a group without committed offsets is deleted once no member can
 * still hold one of its generations: at once if it never handed one out, else after `keepMs`
 * (the longest session timeout: a member unheard of for that long is out of the group).
 */
export class GroupLeaseRepository extends LeaseHolder {
  /** Claims the group if it is free or its lease expired; answers the holder either way. */
  async claimOrFind(tenantId: string, groupId: string): Promise<GroupLeaseHolder> {
    const holder = await this.claimOrFindRow<Omit<GroupLeaseHolder, "live">>(GROUP_LEASE, tenantId, groupId, [
      "ownerWorkerId",
      "epoch",
      "generation",
    ]);
    return holder ?? { ownerWorkerId: null, epoch: 0, generation: 0, live: false };
  }

  /**
   * Records a generation the holder is about to hand out, if it still holds the lease at `epoch`
   * (false: it moved, and the generation must not be handed out). Never lowers the stored one, so
   * two records racing each other leave the higher.
   */
  async recordGeneration(lease: HeldGroupLease, generation: number): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      UPDATE "KafkaGroup" SET "generation" = GREATEST("generation", ${generation}::int)
      WHERE "organizationId" = ${lease.tenantId} AND "groupId" = ${lease.groupId}
        AND "ownerWorkerId" = ${this.workerId} AND "epoch" = ${lease.epoch}`;
    return updated === 1;
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
   * Takes over up to `limit` leases a dead holder left (expired, or its session ended:
   * worker-session.ts; a released lease has no owner and waits for a client to ask), so a dead
   * worker's groups move within one renewal period (a lease TTL more if its session lingers) even
   * before any client asks.
   */
  async claimExpired(limit: number): Promise<AdoptedGroupLease[]> {
    const rows = await this.prisma.$queryRaw<
      { organizationId: string; groupId: string; epoch: number; generation: number }[]
    >`
      UPDATE "KafkaGroup" k SET "ownerWorkerId" = ${this.workerId}, "epoch" = k."epoch" + 1,
             "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      FROM (SELECT "organizationId", "groupId" FROM "KafkaGroup"
            WHERE "ownerWorkerId" IS NOT NULL AND ("leaseExpiresAt" <= ${DB_NOW}
              OR ("ownerWorkerId" <> ${this.workerId} AND "ownerWorkerId" IN ${ENDED_SESSIONS}))
            ORDER BY "leaseExpiresAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
      WHERE k."organizationId" = due."organizationId" AND k."groupId" = due."groupId"
      RETURNING k."organizationId", k."groupId", k."epoch", k."generation"`;
    return rows.map((r) => ({
      tenantId: r.organizationId,
      groupId: r.groupId,
      epoch: r.epoch,
      generation: r.generation,
    }));
  }

  /**
   * On a graceful stop: the groups are free at once for the next worker a client asks. The lease
   * ends now rather than vanishing, so the row says when it lapsed.
   */
  async releaseAll(): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE "KafkaGroup" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = ${DB_NOW}
      WHERE "ownerWorkerId" = ${this.workerId}`;
  }

  /** Gives up these leases (idle groups) if still held at the same epoch. */
  async release(leases: readonly HeldGroupLease[]): Promise<void> {
    if (leases.length === 0) return;
    const keys = Prisma.join(leases.map((l) => Prisma.sql`(${l.tenantId}, ${l.groupId}, ${l.epoch}::int)`));
    await this.prisma.$executeRaw`
      UPDATE "KafkaGroup" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = ${DB_NOW}
      WHERE "ownerWorkerId" = ${this.workerId}
        AND ("organizationId", "groupId", "epoch") IN (${keys})`;
  }

  /**
   * Deletes the lapsed rows (released, or expired) of groups with no committed offsets that no
   * member can still hold a generation of (see the class comment): nothing is lost, and the next
   * FindCoordinator for such a group id creates the row again.
   */
  async deleteLapsedWithoutOffsets(keepMs: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM "KafkaGroup" k
      WHERE (k."ownerWorkerId" IS NULL OR k."leaseExpiresAt" IS NULL OR k."leaseExpiresAt" <= ${DB_NOW})
        AND (k."generation" = 0 OR k."leaseExpiresAt" IS NULL
             OR k."leaseExpiresAt" <= ${DB_NOW} - ${dbInterval(keepMs)})
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
