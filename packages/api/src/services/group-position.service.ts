import type { DataPlane } from "@lastword/dataplane";
import { committedPosition, type PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { commitOffsets } from "./consumer-group.service";
import { findTopic } from "./topic.service";

export interface GroupPositionDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** The next offset the group reads; null: no committed position (see committedPosition). */
  offset: number | null;
  logStartOffset: number | null;
  logEndOffset: number | null;
  /**
   * Offsets between the committed position and the log end (Kafka's offset lag; gaps count); null
   * when the partition is unavailable or the group has no committed position there.
   */
  lag: number | null;
  /** Age of the next unread record (0 when caught up); null whenever `lag` is. */
  lagMs: number | null;
}

/**
 * Lag of one committed position, as stored (a negative one is no position: the log's ends are
 * shown, the lag is not, as Kafka's tools print "-"; where that consumer starts is its reset
 * policy's choice). A committed offset may sit inside a range compaction removed: the next
 * unread record is then the first retained one after it, which a fetch from there returns.
 */
export async function partitionLag(
  deps: GroupPositionDeps,
  topic: { id: string; name: string },
  partition: number,
  stored: bigint,
): Promise<PartitionLag> {
  const offset = committedPosition(stored);
  const unknown = { topic: topic.name, partition, offset, logStartOffset: null, logEndOffset: null };
  const row = await deps.prisma.partition.findUnique({
    where: { topicId_index: { topicId: topic.id, index: partition } },
    select: { id: true },
  });
  if (!row) return { ...unknown, lag: null, lagMs: null };
  try {
    const { earliest, latest } = await deps.dataPlane.listOffsets({ partitionId: row.id });
    const known = { ...unknown, logStartOffset: earliest, logEndOffset: latest };
    if (offset === null) return { ...known, lag: null, lagMs: null };
    if (offset >= latest) return { ...known, lag: 0, lagMs: 0 };
    const from = Math.max(offset, earliest);
    const { records } = await deps.dataPlane.fetch({ partitionId: row.id, offset: from, limit: 1 });
    const next = records[0];
    const lagMs = next ? Math.max(0, deps.clock.now() - next.timestamp) : 0;
    return { ...known, lag: latest - offset, lagMs };
  } catch {
    // Lag is informative; an unavailable partition shows none rather than failing the whole answer.
    return { ...unknown, lag: null, lagMs: null };
  }
}

async function findGroup(prisma: PrismaClient, tenantId: string, name: string) {
  const group = await prisma.consumerGroup.findUnique({
    where: { organizationId_name: { organizationId: tenantId, name } },
    include: {
      offsets: { include: { topic: true }, orderBy: [{ topicId: "asc" }, { partitionIndex: "asc" }] },
    },
  });
  if (!group) throw new AppError("GROUP_NOT_FOUND", `Consumer group "${name}" does not exist.`);
  return group;
}

/** Per partition: committed offset, lag in records and lag in time. */
export async function groupLag(deps: GroupPositionDeps, identity: Identity, name: string) {
  const group = await findGroup(deps.prisma, identity.tenantId, name);
  const partitions = await Promise.all(
    group.offsets.map((o) => partitionLag(deps, o.topic, o.partitionIndex, o.offset)),
  );
  return {
    group: group.name,
    partitions,
    totalLag: partitions.reduce((n, p) => n + (p.lag ?? 0), 0),
    maxLagMs: partitions.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0),
  };
}

export type ResetTarget = "earliest" | "latest" | "timestamp" | "offset";

/**
 * Moves a group's position on a topic (every partition, or the ones named) to the log start, the
 * log end, the first record at or after a timestamp (the log end when there is none) or an offset
 * (kept within the log, as Kafka's --to-offset). With `dryRun` nothing is committed: the answer is
 * the preview, each partition's position before and after and the lag it would leave.
 */
export async function resetOffsets(
  deps: GroupPositionDeps,
  identity: Identity,
  input: {
    group: string;
    topic: string;
    to: ResetTarget;
    timestamp?: number | undefined;
    offset?: number | undefined;
    partitions?: number[] | undefined;
    dryRun?: boolean | undefined;
  },
) {
  if (input.to === "timestamp" && input.timestamp === undefined) {
    throw new AppError("INVALID_INPUT", 'Resetting to "timestamp" needs a timestamp (epoch milliseconds).');
  }
  if (input.to === "offset" && input.offset === undefined) {
    throw new AppError("INVALID_INPUT", 'Resetting to "offset" needs the offset to move to.');
  }
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const [rows, group] = await Promise.all([
    deps.prisma.partition.findMany({
      where: { topicId: topic.id, ...(input.partitions ? { index: { in: input.partitions } } : {}) },
      orderBy: { index: "asc" },
    }),
    deps.prisma.consumerGroup.findUnique({
      where: { organizationId_name: { organizationId: identity.tenantId, name: input.group } },
      include: { offsets: { where: { topicId: topic.id } } },
    }),
  ]);
  const missing = input.partitions?.find((p) => !rows.some((r) => r.index === p));
  if (missing !== undefined) {
    throw new AppError(
      "PARTITION_NOT_FOUND",
      `Topic "${topic.name}" has no partition ${missing} (it has ${topic.partitionCount}).`,
      { details: { partition: missing } },
    );
  }
  const before = new Map(group?.offsets.map((o) => [o.partitionIndex, committedPosition(o.offset)]) ?? []);
  const offsets = await Promise.all(
    rows.map(async (row) => {
      const listed = await deps.dataPlane.listOffsets({
        partitionId: row.id,
        ...(input.to === "timestamp" ? { timestamp: input.timestamp } : {}),
      });
      const offset =
        input.to === "earliest"
          ? listed.earliest
          : input.to === "latest"
            ? listed.latest
            : input.to === "timestamp"
              ? (listed.timestampOffset ?? listed.latest)
              : Math.min(listed.latest, Math.max(listed.earliest, input.offset ?? 0));
      return {
        topic: topic.name,
        partition: row.index,
        offset,
        previousOffset: before.get(row.index) ?? null,
        lagAfter: listed.latest - offset,
      };
    }),
  );
  if (!input.dryRun) {
    await commitOffsets(deps, identity, {
      group: input.group,
      offsets: offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
    });
  }
  return { group: input.group, dryRun: input.dryRun ?? false, offsets };
}

/** The groups with a committed position on a topic, with their lag there. */
export async function listTopicGroups(deps: GroupPositionDeps, identity: Identity, topicName: string) {
  const topic = await findTopic(deps.prisma, identity.tenantId, topicName);
  const groups = await deps.prisma.consumerGroup.findMany({
    where: { organizationId: identity.tenantId, offsets: { some: { topicId: topic.id } } },
    include: { offsets: { where: { topicId: topic.id }, orderBy: { partitionIndex: "asc" } } },
    orderBy: { name: "asc" },
  });
  return {
    topic: topic.name,
    groups: await Promise.all(
      groups.map(async (g) => {
        const partitions = await Promise.all(
          g.offsets.map((o) => partitionLag(deps, topic, o.partitionIndex, o.offset)),
        );
        return {
          group: g.name,
          partitions,
          totalLag: partitions.reduce((n, p) => n + (p.lag ?? 0), 0),
          maxLagMs: partitions.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0),
        };
      }),
    ),
  };
}
