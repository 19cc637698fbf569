import type { GroupMembership } from "@lastword/dataplane";
import { parseTopicConfig } from "@lastword/topic-config";
import { mayDescribe } from "../auth/act-authorization";
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

type Coordinators = Awaited<ReturnType<typeof kafkaCoordinators>>;
type Membership = Omit<GroupMembership, "groupId">;

/** What a live coordinator holds no membership for has none: Kafka describes such a group as Empty. */
const EMPTY_MEMBERSHIP: Membership = {
  state: "Empty",
  protocolType: null,
  protocolName: null,
  generationId: 0,
  leaderId: null,
  members: [],
};

/**
 * The membership of the tenant's Kafka groups, asked of each worker that holds a live coordinator
 * lease (membership lives in that worker's memory only). A worker that does not answer leaves its
 * groups without membership and with the reason; the rest of the page still loads.
 */
async function kafkaMemberships(deps: GroupPositionDeps, tenantId: string, coordinators: Coordinators) {
  const workers = new Set<string>();
  for (const c of coordinators.values()) if (c.live && c.workerId !== null) workers.add(c.workerId);
  const memberships = new Map<string, GroupMembership>();
  const unavailable = new Map<string, string>();
  await Promise.all(
    [...workers].map(async (workerId) => {
      try {
        const answer = await deps.dataPlane.describeGroups({ tenantId, workerId });
        for (const g of answer.groups) memberships.set(g.groupId, g);
      } catch (error) {
        // By name, as problem.ts tells data-plane errors apart.
        if (!(error instanceof Error) || error.name !== "DataPlaneError") throw error;
        unavailable.set(workerId, `Its coordinator (worker ${workerId}) did not answer: ${error.message}.`);
      }
    }),
  );
  return (group: string): { membership: Membership | null; membershipUnavailable: string | null } => {
    const coordinator = coordinators.get(group);
    if (!coordinator) return { membership: null, membershipUnavailable: null };
    // No live lease: no worker holds the group, so no consumer is in it. Kafka names that state
    // Empty (a group with members always has a live coordinator: their heartbeats keep it).
    if (!coordinator.live || coordinator.workerId === null) {
      return { membership: EMPTY_MEMBERSHIP, membershipUnavailable: null };
    }
    const reason = unavailable.get(coordinator.workerId);
    if (reason) return { membership: null, membershipUnavailable: reason };
    const { groupId: _, ...membership } = memberships.get(group) ?? { groupId: group, ...EMPTY_MEMBERSHIP };
    return { membership, membershipUnavailable: null };
  };
}

/**
 * Every consumer group of the tenant, Kafka-protocol and REST alike (one model: their committed
 * offsets), with lag per partition grouped by topic, the topic's delete.retention.ms (lag past it
 * may have missed tombstones) and, for a Kafka group, the worker whose lease coordinates it and
 * the membership it holds. Kafka groups with members that have committed nothing yet follow.
 * With `only`, that group alone (none when it does not exist).
 */
export async function listGroups(deps: GroupPositionDeps, identity: Identity, only?: string) {
  const [groups, allCoordinators] = await Promise.all([
    deps.prisma.consumerGroup.findMany({
      where: { organizationId: identity.tenantId, ...(only === undefined ? {} : { name: only }) },
      include: {
        offsets: { include: { topic: true }, orderBy: [{ topicId: "asc" }, { partitionIndex: "asc" }] },
      },
      orderBy: { name: "asc" },
    }),
    kafkaCoordinators(deps, identity.tenantId),
  ]);
  // One group's page asks only that group's coordinator for its membership.
  const coordinators =
    only === undefined ? allCoordinators : new Map([...allCoordinators].filter(([name]) => name === only));
  const membershipOf = await kafkaMemberships(deps, identity.tenantId, coordinators);
  // Groups often stand at the same position (caught up at the log end): one look-up per position.
  const positions = new Map<string, Promise<PartitionLag>>();
  const lagAt = (topic: { id: string; name: string }, partition: number, offset: bigint) => {
    const key = `${topic.id}:${partition}:${offset}`;
    let lag = positions.get(key);
    if (!lag) {
      lag = partitionLag(deps, topic, partition, offset);
      positions.set(key, lag);
    }
    return lag;
  };
  const committed = await Promise.all(
    groups.map(async (group) => {
      const byTopic = new Map<
        string,
        { topic: string; deleteRetentionMs: number; partitions: PartitionLag[] }
      >();
      const lags = await Promise.all(group.offsets.map((o) => lagAt(o.topic, o.partitionIndex, o.offset)));
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
        ...membershipOf(group.name),
        totalLag: lags.reduce((n, p) => n + (p.lag ?? 0), 0),
        maxLagMs: lags.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0),
        lastCommitAt: lastCommit === 0 ? null : new Date(lastCommit).toISOString(),
        topics: [...byTopic.values()],
      };
    }),
  );
  const named = new Set(groups.map((g) => g.name));
  const joinedOnly = [...coordinators]
    .filter(([name]) => !named.has(name))
    .map(([name, coordinator]) => ({
      group: name,
      protocol: "kafka" as const,
      coordinator,
      ...membershipOf(name),
      totalLag: 0,
      maxLagMs: 0,
      lastCommitAt: null,
      topics: [],
    }))
    .filter((g) => (g.membership?.members.length ?? 0) > 0);
  // A key limited by rules sees its rules' groups only.
  return { groups: [...committed, ...joinedOnly].filter((g) => mayDescribe(identity, "group", g.group)) };
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
