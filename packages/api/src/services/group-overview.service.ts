import { parseTopicConfig } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { type GroupPositionDeps, type PartitionLag, partitionLag } from "./group-position.service";
import { storedConfigs } from "./topic-config";

/**
 * Who coordinates a group over the Kafka protocol, from its KafkaGroup lease row; lease times are
 * the database's clock, as the workers write them.
 */
async function kafkaCoordinators(deps: GroupPositionDeps, tenantId: string) {
  const rows = await deps.prisma.$queryRaw<
    { groupId: string; ownerWorkerId: string | null; live: boolean | null }[]
  >`
    SELECT "groupId", "ownerWorkerId", ("leaseExpiresAt" > (now() AT TIME ZONE 'UTC')) AS "live"
    FROM "KafkaGroup" WHERE "organizationId" = ${tenantId}`;
  return new Map(
    rows.map((r) => [
      r.groupId,
      { workerId: r.ownerWorkerId, live: r.ownerWorkerId !== null && r.live === true },
    ]),
  );
}

/**
 * Every consumer group of the tenant, Kafka-protocol and REST alike (one model: their committed
 * offsets), with lag per partition grouped by topic, the topic's delete.retention.ms (lag past it
 * may have missed tombstones) and, for a Kafka group, the worker whose lease coordinates it.
 */
export async function listGroups(deps: GroupPositionDeps, identity: Identity) {
  const [groups, coordinators] = await Promise.all([
    deps.prisma.consumerGroup.findMany({
      where: { organizationId: identity.tenantId },
      include: {
        offsets: { include: { topic: true }, orderBy: [{ topicId: "asc" }, { partitionIndex: "asc" }] },
      },
      orderBy: { name: "asc" },
    }),
    kafkaCoordinators(deps, identity.tenantId),
  ]);
  return {
    groups: await Promise.all(
      groups.map(async (group) => {
        const byTopic = new Map<
          string,
          { topic: string; deleteRetentionMs: number; partitions: PartitionLag[] }
        >();
        const lags = await Promise.all(
          group.offsets.map((o) => partitionLag(deps, o.topic, o.partitionIndex, Number(o.offset))),
        );
        group.offsets.forEach((o, i) => {
          let entry = byTopic.get(o.topic.name);
          if (!entry) {
            entry = {
              topic: o.topic.name,
              deleteRetentionMs: parseTopicConfig(storedConfigs(o.topic.configs)).deleteRetentionMs,
              partitions: [],
            };
            byTopic.set(o.topic.name, entry);
          }
          entry.partitions.push(lags[i]!);
        });
        const lastCommit = group.offsets.reduce((n, o) => Math.max(n, o.committedAt.getTime()), 0);
        const coordinator = coordinators.get(group.name) ?? null;
        return {
          group: group.name,
          protocol: coordinator ? ("kafka" as const) : ("rest" as const),
          coordinator,
          totalLag: lags.reduce((n, p) => n + (p.lag ?? 0), 0),
          maxLagMs: lags.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0),
          lastCommitAt: lastCommit === 0 ? null : new Date(lastCommit).toISOString(),
          topics: [...byTopic.values()],
        };
      }),
    ),
  };
}

/**
 * Deletes a group and its committed offsets. A group a Kafka coordinator holds is refused, as
 * Kafka refuses to delete a group that is not empty: its membership lives in that worker, so the
 * Kafka client's DeleteGroups (sent there once the consumers stopped) is the way to remove it.
 */
export async function deleteGroup(deps: GroupPositionDeps, identity: Identity, name: string) {
  const group = await deps.prisma.consumerGroup.findUnique({
    where: { organizationId_name: { organizationId: identity.tenantId, name } },
  });
  if (!group) throw new AppError("GROUP_NOT_FOUND", `Consumer group "${name}" does not exist.`);
  const coordinator = (await kafkaCoordinators(deps, identity.tenantId)).get(name);
  if (coordinator?.live) {
    throw new AppError(
      "GROUP_NOT_EMPTY",
      `Consumer group "${name}" is coordinated over the Kafka protocol right now: stop its consumers and delete it with a Kafka client (kafka-consumer-groups --delete), as Kafka refuses to delete a group that is still active.`,
    );
  }
  await deps.prisma.consumerGroup.delete({ where: { id: group.id } });
  return { group: name, deleted: true as const };
}
