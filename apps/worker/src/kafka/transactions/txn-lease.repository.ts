import { Prisma } from "@lastword/db";
import { DB_NOW, dbInterval, LeaseHolder, type LeaseKey } from "../../ownership/lease-holder";
import { ENDED_SESSIONS } from "../../ownership/worker-session";

/** A transactional id's coordinator lease as this worker holds it; `epoch` is also its markers' coordinator epoch. */
export interface HeldTxnLease {
  tenantId: string;
  transactionalId: string;
  epoch: number;
}

export interface TxnLeaseHolder {
  ownerWorkerId: string | null;
  epoch: number;
  /** The lease is unexpired on the database clock. */
  live: boolean;
}

const TXN_LEASE: LeaseKey = { table: "KafkaTransaction", keyColumn: "transactionalId" };

/**
 * The coordinator lease on a (tenant, transactional id), the KafkaTransaction row, claimed and
 * renewed as the group coordinator's (group-lease.repository.ts): FindCoordinator claims a free or
 * expired row (bumping the epoch), the holder renews all of its rows together, and a dead holder's
 * rows are taken over by the next renewal tick anywhere, so a transaction left in Prepare* or
 * Ongoing always has a live coordinator to finish or time it out.
 */
export class TxnLeaseRepository extends LeaseHolder {
  async claimOrFind(tenantId: string, transactionalId: string): Promise<TxnLeaseHolder> {
    const holder = await this.claimOrFindRow<Omit<TxnLeaseHolder, "live">>(
      TXN_LEASE,
      tenantId,
      transactionalId,
      ["ownerWorkerId", "epoch"],
    );
    return holder ?? { ownerWorkerId: null, epoch: 0, live: false };
  }

  /** Extends every lease this worker holds; a row another worker took over is not returned. */
  async renewAll(): Promise<HeldTxnLease[]> {
    const rows = await this.prisma.$queryRaw<
      { organizationId: string; transactionalId: string; epoch: number }[]
    >`
      UPDATE "KafkaTransaction" SET "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      WHERE "ownerWorkerId" = ${this.workerId}
      RETURNING "organizationId", "transactionalId", "epoch"`;
    return rows.map(held);
  }

  /**
   * Takes over up to `limit` rows whose holder died (lease expired or its session ended) and that
   * still have work: a transaction open or being completed. An idle id waits for a client to ask.
   */
  async claimExpired(limit: number): Promise<HeldTxnLease[]> {
    const rows = await this.prisma.$queryRaw<
      { organizationId: string; transactionalId: string; epoch: number }[]
    >`
      UPDATE "KafkaTransaction" k SET "ownerWorkerId" = ${this.workerId}, "epoch" = k."epoch" + 1,
             "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      FROM (SELECT "organizationId", "transactionalId" FROM "KafkaTransaction"
            WHERE "state" IN ('Ongoing', 'PrepareCommit', 'PrepareAbort')
              AND ("ownerWorkerId" IS NULL OR "leaseExpiresAt" IS NULL OR "leaseExpiresAt" <= ${DB_NOW}
                   OR ("ownerWorkerId" <> ${this.workerId} AND "ownerWorkerId" IN ${ENDED_SESSIONS}))
            ORDER BY "leaseExpiresAt" NULLS FIRST LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
      WHERE k."organizationId" = due."organizationId" AND k."transactionalId" = due."transactionalId"
      RETURNING k."organizationId", k."transactionalId", k."epoch"`;
    return rows.map(held);
  }

  /** Gives up these leases (idle ids) if still held at the same epoch. */
  async release(leases: readonly HeldTxnLease[]): Promise<void> {
    const keys = Prisma.join(
      leases.map((l) => Prisma.sql`(${l.tenantId}, ${l.transactionalId}, ${l.epoch}::int)`),
    );
    await this.prisma.$executeRaw`
      UPDATE "KafkaTransaction" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = ${DB_NOW}
      WHERE "ownerWorkerId" = ${this.workerId}
        AND ("organizationId", "transactionalId", "epoch") IN (${keys})`;
  }

  /** On a graceful stop: the ids are free at once (the next tick anywhere adopts those with work). */
  async releaseAll(): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE "KafkaTransaction" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = ${DB_NOW}
      WHERE "ownerWorkerId" = ${this.workerId}`;
  }
}

function held(r: { organizationId: string; transactionalId: string; epoch: number }): HeldTxnLease {
  return { tenantId: r.organizationId, transactionalId: r.transactionalId, epoch: r.epoch };
}
