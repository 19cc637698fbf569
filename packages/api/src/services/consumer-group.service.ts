import type { DataPlane } from "@lastword/dataplane";
import { committedPosition, type PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { findTopic } from "./topic.service";

export interface ConsumerGroupDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

export interface OffsetCommit {
  topic: string;
  partition: number;
  /** The next offset the group will read (Kafka's convention). */
  offset: number;
  metadata?: string | undefined;
}

async function resolvePartitions(prisma: PrismaClient, tenantId: string, commits: readonly OffsetCommit[]) {
  const topics = new Map<string, { id: string; partitionCount: number }>();
  for (const name of new Set(commits.map((c) => c.topic)))
    topics.set(name, await findTopic(prisma, tenantId, name));
  return commits.map((commit, index) => {
    const topic = topics.get(commit.topic)!;
    if (commit.partition >= topic.partitionCount) {
      throw new AppError(
        "PARTITION_NOT_FOUND",
        `Offset ${index} names partition ${commit.partition}; topic "${commit.topic}" has ${topic.partitionCount}.`,
        { details: { index } },
      );
    }
    return { ...commit, topicId: topic.id };
  });
}

/** Commits a group's offsets (creating the group on first commit), all or nothing. */
export async function commitOffsets(
  deps: ConsumerGroupDeps,
  identity: Identity,
  input: { group: string; offsets: OffsetCommit[] },
): Promise<{ group: string; committed: number }> {
  const resolved = await resolvePartitions(deps.prisma, identity.tenantId, input.offsets);
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    const group = await tx.consumerGroup.upsert({
      where: { organizationId_name: { organizationId: identity.tenantId, name: input.group } },
      create: { organizationId: identity.tenantId, name: input.group, createdAt: now },
      update: { updatedAt: now },
    });
    for (const c of resolved) {
      const key = { groupId: group.id, topicId: c.topicId, partitionIndex: c.partition };
      const values = { offset: BigInt(c.offset), metadata: c.metadata ?? null, committedAt: now };
      await tx.consumerGroupOffset.upsert({
        where: { groupId_topicId_partitionIndex: key },
        create: { ...key, ...values },
        update: values,
      });
    }
  });
  return { group: input.group, committed: resolved.length };
}

async function logEndOffset(
  deps: ConsumerGroupDeps,
  topicId: string,
  partition: number,
): Promise<number | null> {
  const row = await deps.prisma.partition.findUnique({
    where: { topicId_index: { topicId, index: partition } },
  });
  if (!row) return null;
  try {
    return (await deps.dataPlane.listOffsets({ partitionId: row.id })).latest;
  } catch {
    // Lag is informative; an unavailable partition shows none rather than failing the describe.
    return null;
  }
}

export async function describeGroup(deps: ConsumerGroupDeps, identity: Identity, name: string) {
  const group = await deps.prisma.consumerGroup.findUnique({
    where: { organizationId_name: { organizationId: identity.tenantId, name } },
    include: {
      offsets: { include: { topic: true }, orderBy: [{ topicId: "asc" }, { partitionIndex: "asc" }] },
    },
  });
  if (!group) throw new AppError("GROUP_NOT_FOUND", `Consumer group "${name}" does not exist.`);
  const offsets = await Promise.all(
    group.offsets.map(async (o) => {
      const end = await logEndOffset(deps, o.topicId, o.partitionIndex);
      const offset = committedPosition(o.offset);
      return {
        topic: o.topic.name,
        partition: o.partitionIndex,
        offset,
        metadata: o.metadata,
        committedAt: o.committedAt.toISOString(),
        logEndOffset: end,
        lag: end === null || offset === null ? null : Math.max(0, end - offset),
      };
    }),
  );
  return { group: group.name, offsets };
}
