import type { Prisma } from "@lastword/db";
import { CoordinatorRepository } from "../coordinator-repository";
import type { HeldGroupLease } from "./group-lease.repository";

export interface StoredOffset {
  topic: string;
  partitionIndex: number;
  offset: bigint;
  metadata: string | null;
}

export interface OffsetToDelete {
  topicId: string;
  partitionIndex: number;
}

export interface OffsetToStore {
  topicId: string;
  partitionIndex: number;
  offset: bigint;
  metadata: string | null;
}

/**
 * Committed offsets of Kafka groups, in the very rows the REST API and the console use
 * (ConsumerGroup + ConsumerGroupOffset, as packages/api's consumer-group.service writes them): one
 * consumer-group model, so a REST reset is what the next OffsetFetch returns and a kafkajs group's
 * lag shows in the console. Offsets are stored as given, negative ones included (kafkajs commits
 * -1/-2 to mean "no position").
 *
 * Every write is fenced by the coordinator lease: it happens in one transaction with a share lock
 * on the group's KafkaGroup row at this worker's epoch, so a request that passed its checks on a
 * coordinator that was deposed meanwhile changes nothing (GroupLeaseMovedError, NOT_COORDINATOR
 * to the client), and a takeover waits for a write already under way.
 */
export class GroupOffsetsRepository extends CoordinatorRepository {
  async commit(lease: HeldGroupLease, offsets: readonly OffsetToStore[]): Promise<void> {
    if (offsets.length === 0) return;
    const { tenantId, groupId: groupName } = lease;
    const now = new Date(this.now());
    await this.prisma.$transaction(async (tx) => {
      await this.#fence(tx, lease);
      const group = await tx.consumerGroup.upsert({
        where: { organizationId_name: { organizationId: tenantId, name: groupName } },
        create: { organizationId: tenantId, name: groupName, createdAt: now },
        update: { updatedAt: now },
      });
      for (const o of offsets) {
        const key = { groupId: group.id, topicId: o.topicId, partitionIndex: o.partitionIndex };
        const values = { offset: o.offset, metadata: o.metadata, committedAt: now };
        await tx.consumerGroupOffset.upsert({
          where: { groupId_topicId_partitionIndex: key },
          create: { ...key, ...values },
          update: values,
        });
      }
    });
  }

  /** Every committed offset of the group (none when the group does not exist). */
  async fetch(tenantId: string, groupName: string): Promise<StoredOffset[]> {
    const group = await this.prisma.consumerGroup.findUnique({
      where: { organizationId_name: { organizationId: tenantId, name: groupName } },
      include: { offsets: { include: { topic: { select: { name: true } } } } },
    });
    return (group?.offsets ?? []).map((o) => ({
      topic: o.topic.name,
      partitionIndex: o.partitionIndex,
      offset: o.offset,
      metadata: o.metadata,
    }));
  }

  /** The tenant's group names with a ConsumerGroup row. */
  async names(tenantId: string): Promise<string[]> {
    const rows = await this.prisma.consumerGroup.findMany({
      where: { organizationId: tenantId },
      select: { name: true },
    });
    return rows.map((r) => r.name);
  }

  async exists(tenantId: string, groupName: string): Promise<boolean> {
    const found = await this.prisma.consumerGroup.findUnique({
      where: { organizationId_name: { organizationId: tenantId, name: groupName } },
      select: { id: true },
    });
    return found !== null;
  }

  /** Deletes the group and its offsets; false when there was none. */
  async delete(lease: HeldGroupLease): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await this.#fence(tx, lease);
      const { count } = await tx.consumerGroup.deleteMany({
        where: { organizationId: lease.tenantId, name: lease.groupId },
      });
      return count > 0;
    });
  }

  /** Deletes the given partitions' committed offsets (OffsetDelete); the group row itself stays. */
  async deleteOffsets(lease: HeldGroupLease, offsets: readonly OffsetToDelete[]): Promise<number> {
    if (offsets.length === 0) return 0;
    return this.prisma.$transaction(async (tx) => {
      await this.#fence(tx, lease);
      const { count } = await tx.consumerGroupOffset.deleteMany({
        where: {
          group: { organizationId: lease.tenantId, name: lease.groupId },
          OR: offsets.map((o) => ({ topicId: o.topicId, partitionIndex: o.partitionIndex })),
        },
      });
      return count;
    });
  }

  /**
   * Throws GroupLeaseMovedError unless this worker still holds the group's lease at `lease.epoch`;
   * otherwise keeps it from moving (a takeover's UPDATE waits on the share lock) until the
   * transaction ends.
   */
  async #fence(tx: Prisma.TransactionClient, lease: HeldGroupLease): Promise<void> {
    const held = await tx.$queryRaw<{ held: number }[]>`
      SELECT 1 AS "held" FROM "KafkaGroup"
      WHERE "organizationId" = ${lease.tenantId} AND "groupId" = ${lease.groupId}
        AND "ownerWorkerId" = ${this.workerId} AND "epoch" = ${lease.epoch}
      FOR SHARE`;
    if (held.length === 0) throw new GroupLeaseMovedError(lease);
  }
}

/** A write to a group's offsets found the coordinator lease no longer this worker's. */
export class GroupLeaseMovedError extends Error {
  constructor(lease: HeldGroupLease) {
    super(`the coordinator lease of group "${lease.groupId}" moved from epoch ${lease.epoch}`);
    this.name = "GroupLeaseMovedError";
  }
}
