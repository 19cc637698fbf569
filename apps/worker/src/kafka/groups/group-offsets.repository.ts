import type { PrismaClient } from "@lastword/db";

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
 */
export class GroupOffsetsRepository {
  readonly #prisma: PrismaClient;
  readonly #now: () => number;

  constructor(prisma: PrismaClient, now: () => number) {
    this.#prisma = prisma;
    this.#now = now;
  }

  async commit(tenantId: string, groupName: string, offsets: readonly OffsetToStore[]): Promise<void> {
    if (offsets.length === 0) return;
    const now = new Date(this.#now());
    await this.#prisma.$transaction(async (tx) => {
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
    const group = await this.#prisma.consumerGroup.findUnique({
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
    const rows = await this.#prisma.consumerGroup.findMany({
      where: { organizationId: tenantId },
      select: { name: true },
    });
    return rows.map((r) => r.name);
  }

  async exists(tenantId: string, groupName: string): Promise<boolean> {
    const found = await this.#prisma.consumerGroup.findUnique({
      where: { organizationId_name: { organizationId: tenantId, name: groupName } },
      select: { id: true },
    });
    return found !== null;
  }

  /** Deletes the group and its offsets; false when there was none. */
  async delete(tenantId: string, groupName: string): Promise<boolean> {
    const { count } = await this.#prisma.consumerGroup.deleteMany({
      where: { organizationId: tenantId, name: groupName },
    });
    return count > 0;
  }

  /** Deletes the given partitions' committed offsets (OffsetDelete); the group row itself stays. */
  async deleteOffsets(
    tenantId: string,
    groupName: string,
    offsets: readonly OffsetToDelete[],
  ): Promise<number> {
    if (offsets.length === 0) return 0;
    const { count } = await this.#prisma.consumerGroupOffset.deleteMany({
      where: {
        group: { organizationId: tenantId, name: groupName },
        OR: offsets.map((o) => ({ topicId: o.topicId, partitionIndex: o.partitionIndex })),
      },
    });
    return count;
  }
}
