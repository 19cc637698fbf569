import type { TransactionState } from "@lastword/api/transaction-states";
import type { Prisma } from "@lastword/db";
import { CoordinatorRepository } from "../coordinator-repository";
import type { HeldTxnLease } from "./txn-lease.repository";

export type TxnStateName = TransactionState;

/** A partition of the open transaction: where its marker goes, and how the client named it. */
export interface TxnPartition {
  partitionId: string;
  topic: string;
  partition: number;
}

/** A TxnOffsetCommit's offset, held until the transaction commits (an abort drops it). */
export interface PendingOffset {
  groupId: string;
  topicId: string;
  partitionIndex: number;
  /** Decimal: JSON has no int64. */
  offset: string;
  metadata: string | null;
}

/** The coordinator's durable record of one transactional id (the KafkaTransaction row). */
export interface TxnRecord {
  producerId: number;
  producerEpoch: number;
  state: TxnStateName;
  timeoutMs: number;
  partitions: TxnPartition[];
  pendingOffsets: PendingOffset[];
  /** When the open transaction began, on the worker's clock (its timeout counts from here). */
  startedAt: number | null;
  updatedAt: number;
  /** An operator asked for the open transaction to be aborted (the console's, audited there). */
  abortRequestedAt: number | null;
}

/** What a change to the row decided: the new fields (none: unchanged) and the caller's answer. */
export interface TxnChange<T> {
  next?: Partial<TxnRecord>;
  result: T;
}

/** A state change found the transactional id's coordinator lease no longer this worker's. */
export class TxnLeaseMovedError extends Error {
  constructor(lease: HeldTxnLease) {
    super(
      `the coordinator lease of transactional id "${lease.transactionalId}" moved from epoch ${lease.epoch}`,
    );
    this.name = "TxnLeaseMovedError";
  }
}

interface Row {
  producerId: bigint;
  producerEpoch: number;
  state: string;
  timeoutMs: number;
  partitions: unknown;
  pendingOffsets: unknown;
  startedAt: Date | null;
  updatedAt: Date;
  abortRequestedAt: Date | null;
}

function recordOf(row: Row): TxnRecord {
  return {
    producerId: Number(row.producerId),
    producerEpoch: row.producerEpoch,
    state: row.state as TxnStateName,
    timeoutMs: row.timeoutMs,
    partitions: row.partitions as TxnPartition[],
    pendingOffsets: row.pendingOffsets as PendingOffset[],
    startedAt: row.startedAt?.getTime() ?? null,
    updatedAt: row.updatedAt.getTime(),
    abortRequestedAt: row.abortRequestedAt?.getTime() ?? null,
  };
}

const COLUMNS = `"producerId", "producerEpoch", "state", "timeoutMs", "partitions", "pendingOffsets", "startedAt", "updatedAt", "abortRequestedAt"`;

/**
 * The transaction state of each transactional id, the coordinator's log in Postgres. Every change
 * is one database transaction that locks the row at this worker's lease epoch first, so a deposed
 * coordinator changes nothing (TxnLeaseMovedError) and a takeover waits for a change under way.
 * A commit's pending offsets reach the group's ConsumerGroupOffset rows in the same transaction
 * that records CompleteCommit: they become visible exactly when the transaction does.
 */
export class TxnStateRepository extends CoordinatorRepository {
  async read(lease: HeldTxnLease): Promise<TxnRecord | null> {
    const rows = await this.prisma.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM "KafkaTransaction"
       WHERE "organizationId" = $1 AND "transactionalId" = $2 AND "ownerWorkerId" = $3 AND "epoch" = $4`,
      lease.tenantId,
      lease.transactionalId,
      this.workerId,
      lease.epoch,
    );
    return rows[0] ? recordOf(rows[0]) : null;
  }

  /** The id's transaction as the database has it, whoever coordinates it (a partition owner's Produce check). */
  async find(tenantId: string, transactionalId: string): Promise<TxnRecord | null> {
    const rows = await this.prisma.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM "KafkaTransaction" WHERE "organizationId" = $1 AND "transactionalId" = $2`,
      tenantId,
      transactionalId,
    );
    return rows[0] ? recordOf(rows[0]) : null;
  }

  /** Runs `change` on the row locked under the lease and writes what it decided. */
  async change<T>(lease: HeldTxnLease, change: (row: TxnRecord) => TxnChange<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<Row[]>(
        `SELECT ${COLUMNS} FROM "KafkaTransaction"
         WHERE "organizationId" = $1 AND "transactionalId" = $2 AND "ownerWorkerId" = $3 AND "epoch" = $4
         FOR UPDATE`,
        lease.tenantId,
        lease.transactionalId,
        this.workerId,
        lease.epoch,
      );
      if (!rows[0]) throw new TxnLeaseMovedError(lease);
      const before = recordOf(rows[0]);
      const { next, result } = change(before);
      if (!next) return result;
      const after = { ...before, ...next };
      if (next.state === "CompleteCommit" && before.state === "PrepareCommit") {
        await applyOffsets(tx, lease.tenantId, before.pendingOffsets, this.now());
      }
      await tx.kafkaTransaction.update({
        where: {
          organizationId_transactionalId: {
            organizationId: lease.tenantId,
            transactionalId: lease.transactionalId,
          },
        },
        data: {
          producerId: BigInt(after.producerId),
          producerEpoch: after.producerEpoch,
          state: after.state,
          timeoutMs: after.timeoutMs,
          partitions: after.partitions as unknown as Prisma.InputJsonValue,
          pendingOffsets: after.pendingOffsets as unknown as Prisma.InputJsonValue,
          startedAt: after.startedAt === null ? null : new Date(after.startedAt),
          updatedAt: new Date(this.now()),
          // An operator's abort request is for the transaction open when it was made.
          ...(after.state !== "Ongoing" && { abortRequestedAt: null }),
        },
      });
      return result;
    });
  }

  /**
   * TxnOffsetCommit's write, on the group coordinator (any worker): the offsets join the
   * transaction's pending ones if the transaction is open under this producer id and epoch.
   * Answers the row's producer fields and state as found, or null when the id has no row.
   */
  async addPendingOffsets(
    tenantId: string,
    transactionalId: string,
    accept: (row: TxnRecord) => PendingOffset[] | null,
  ): Promise<TxnRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<Row[]>(
        `SELECT ${COLUMNS} FROM "KafkaTransaction"
         WHERE "organizationId" = $1 AND "transactionalId" = $2 FOR UPDATE`,
        tenantId,
        transactionalId,
      );
      if (!rows[0]) return null;
      const row = recordOf(rows[0]);
      const offsets = accept(row);
      if (offsets === null) return row;
      const key = (o: PendingOffset) => `${o.groupId}\0${o.topicId}\0${o.partitionIndex}`;
      const merged = new Map(row.pendingOffsets.map((o) => [key(o), o]));
      for (const o of offsets) merged.set(key(o), o);
      await tx.kafkaTransaction.update({
        where: { organizationId_transactionalId: { organizationId: tenantId, transactionalId } },
        data: {
          pendingOffsets: [...merged.values()] as unknown as Prisma.InputJsonValue,
          updatedAt: new Date(this.now()),
        },
      });
      return row;
    });
  }

  /** The rows this worker coordinates whose transaction is open or being completed. */
  async withWork(): Promise<(HeldTxnLease & TxnRecord)[]> {
    const rows = await this.prisma.$queryRawUnsafe<
      (Row & { organizationId: string; transactionalId: string; epoch: number })[]
    >(
      `SELECT "organizationId", "transactionalId", "epoch", ${COLUMNS} FROM "KafkaTransaction"
       WHERE "ownerWorkerId" = $1 AND "state" IN ('Ongoing', 'PrepareCommit', 'PrepareAbort')`,
      this.workerId,
    );
    return rows.map((r) => ({
      tenantId: r.organizationId,
      transactionalId: r.transactionalId,
      epoch: r.epoch,
      ...recordOf(r),
    }));
  }

  /** The tenant's open transactions' pending offsets for a group (OffsetFetch's requireStable). */
  async pendingFor(tenantId: string, groupId: string): Promise<PendingOffset[]> {
    const rows = await this.prisma.$queryRawUnsafe<{ pendingOffsets: unknown }[]>(
      `SELECT "pendingOffsets" FROM "KafkaTransaction"
       WHERE "organizationId" = $1 AND "state" IN ('Ongoing', 'PrepareCommit')`,
      tenantId,
    );
    return rows.flatMap((r) => (r.pendingOffsets as PendingOffset[]).filter((o) => o.groupId === groupId));
  }
}

/** A committed transaction's offsets into the groups' rows (the rows REST and the console read). */
async function applyOffsets(
  tx: Prisma.TransactionClient,
  tenantId: string,
  offsets: readonly PendingOffset[],
  nowMs: number,
): Promise<void> {
  const now = new Date(nowMs);
  const groupIds = new Map<string, string>();
  for (const o of offsets) {
    let groupId = groupIds.get(o.groupId);
    if (groupId === undefined) {
      const group = await tx.consumerGroup.upsert({
        where: { organizationId_name: { organizationId: tenantId, name: o.groupId } },
        create: { organizationId: tenantId, name: o.groupId, createdAt: now },
        update: { updatedAt: now },
      });
      groupId = group.id;
      groupIds.set(o.groupId, groupId);
    }
    const key = { groupId, topicId: o.topicId, partitionIndex: o.partitionIndex };
    const values = { offset: BigInt(o.offset), metadata: o.metadata, committedAt: now };
    // A topic deleted since the commit has no row to point at: its offset goes with it.
    const topic = await tx.topic.findUnique({ where: { id: o.topicId }, select: { id: true } });
    if (!topic) continue;
    await tx.consumerGroupOffset.upsert({
      where: { groupId_topicId_partitionIndex: key },
      create: { ...key, ...values },
      update: values,
    });
  }
}
