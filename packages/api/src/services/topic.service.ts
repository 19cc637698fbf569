import type { DataPlane } from "@lastword/dataplane";
import type { Partition, Prisma, PrismaClient, Topic } from "@lastword/db";
import { mayDescribe } from "../auth/act-authorization";
import type { Identity } from "../auth/request-identity";
import { cachePerOwner, type LookupDeps } from "../cache/lookup-cache";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";
import type { CreateTopicInput } from "./create-topic.schema";
import { decodeCursor, encodeCursor } from "./cursor";
import { assertPartitionQuota, PARTITION_CHANGE_TRANSACTION, reservePartitions } from "./partition-quota";
import { assertNotProtected } from "./protected-topics";
import { tenantQuota } from "./rate-limit.service";
import type { TopicSummary } from "./topic.schema";
import { cleanupPolicyOf, isCompacted, storedConfigs, validateConfigs } from "./topic-config";
import { type ConfigWarning, configWarnings } from "./topic-guardrails";
import { presetConfigs } from "./topic-presets";
import { type TopicUsage, topicUsage } from "./topic-usage";
import { loadTopicWarnings } from "./topic-warnings";

type TopicListItem = TopicSummary & { usage: TopicUsage; warnings: ConfigWarning[] };

export interface TopicDeps {
  prisma: PrismaClient;
  clock: Clock;
}

export function topicSummary(topic: Topic): TopicSummary {
  const configs = storedConfigs(topic.configs);
  return {
    id: topic.id,
    name: topic.name,
    partitions: topic.partitionCount,
    cleanupPolicy: cleanupPolicyOf(configs),
    configs,
    createdAt: topic.createdAt.toISOString(),
  };
}

export function topicNotFound(name: string): AppError {
  return new AppError("TOPIC_NOT_FOUND", `Topic "${name}" does not exist.`, { details: { topic: name } });
}

/** A topic of the caller's tenant; another tenant's topic of the same name is just as absent. */
export async function findTopic(prisma: PrismaClient, tenantId: string, name: string): Promise<Topic> {
  const topic = await prisma.topic.findUnique({
    where: { organizationId_name: { organizationId: tenantId, name } },
  });
  if (!topic) throw topicNotFound(name);
  return topic;
}

/** What a produce needs of its topic: how many partitions, their ids by index, and whether it is compacted. */
export interface TopicRouting {
  topicId: string;
  name: string;
  partitionCount: number;
  compacted: boolean;
  partitionIds: ReadonlyMap<number, string>;
}

/**
 * How long a topic's routing is reused per process on the produce path. A change made through this
 * process (create, delete, config change, partitions added) applies at once (`forgetTopicRouting`);
 * one made by another process within this.
 */
export const TOPIC_ROUTING_CACHE_MS = 500;
const routings = cachePerOwner<TopicRouting>({ ttlMs: TOPIC_ROUTING_CACHE_MS });
const routingKey = (tenantId: string, name: string) => `${tenantId}\u0000${name}`;

/** The caller's topic as produce routes to it, in one query (or none, within the TTL). */
export async function topicRouting(deps: LookupDeps, tenantId: string, name: string): Promise<TopicRouting> {
  const routing = await routings.of(deps.prisma, deps.clock).get(routingKey(tenantId, name), async () => {
    const topic = await deps.prisma.topic.findUnique({
      where: { organizationId_name: { organizationId: tenantId, name } },
      select: {
        id: true,
        partitionCount: true,
        configs: true,
        partitions: { select: { id: true, index: true } },
      },
    });
    if (!topic) return null;
    return {
      topicId: topic.id,
      name,
      partitionCount: topic.partitionCount,
      compacted: isCompacted(storedConfigs(topic.configs)),
      partitionIds: new Map(topic.partitions.map((p) => [p.index, p.id])),
    };
  });
  if (!routing) throw topicNotFound(name);
  return routing;
}

export function forgetTopicRouting(prisma: PrismaClient, tenantId: string, name: string): void {
  routings.existing(prisma)?.forget(routingKey(tenantId, name));
}

/**
 * A write to `routing`'s partitions failed. If the routing was out of date (the topic deleted or
 * recreated by another process within the TTL), it is forgotten, and a deleted topic is answered
 * as TOPIC_NOT_FOUND rather than the worker's retriable "no such partition". Reads past the cache;
 * when that read fails too, the write's own error stands.
 */
export async function recheckTopicRouting(
  prisma: PrismaClient,
  tenantId: string,
  routing: TopicRouting,
): Promise<void> {
  const row = await prisma.topic
    .findUnique({
      where: { organizationId_name: { organizationId: tenantId, name: routing.name } },
      select: { id: true },
    })
    .catch(() => undefined);
  if (row === undefined || row?.id === routing.topicId) return;
  forgetTopicRouting(prisma, tenantId, routing.name);
  if (row === null) throw topicNotFound(routing.name);
}

/**
 * A partition's id by index through the cached routing (the read path: 404 for a missing index,
 * and served while Postgres is unreachable, like produce).
 */
export async function routedPartition(
  deps: LookupDeps,
  tenantId: string,
  topicName: string,
  index: number,
): Promise<{ routing: TopicRouting; partitionId: string }> {
  const routing = await topicRouting(deps, tenantId, topicName);
  const partitionId = routing.partitionIds.get(index);
  if (partitionId === undefined) throw partitionNotFound(topicName, index, routing.partitionCount);
  return { routing, partitionId };
}

function partitionNotFound(topicName: string, index: number, partitionCount: number): AppError {
  return new AppError(
    "PARTITION_NOT_FOUND",
    `Topic "${topicName}" has no partition ${index} (it has ${partitionCount}).`,
    { details: { partition: index } },
  );
}

/** A partition by index of one of the caller's topics (404 for another tenant's, or a missing index). */
export async function findPartition(
  prisma: PrismaClient,
  tenantId: string,
  topicName: string,
  index: number,
): Promise<{ topic: Topic; partition: Partition }> {
  const topic = await findTopic(prisma, tenantId, topicName);
  const partition = await prisma.partition.findUnique({
    where: { topicId_index: { topicId: topic.id, index } },
  });
  if (!partition) throw partitionNotFound(topicName, index, topic.partitionCount);
  return { topic, partition };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

export async function createTopic(
  deps: TopicDeps,
  identity: Identity,
  input: CreateTopicInput,
): Promise<{ topic: TopicSummary; validateOnly: boolean; warnings: ConfigWarning[] }> {
  assertNotProtected(input.name, "created by a client");
  const quota = await tenantQuota(deps, identity.tenantId);
  const preset = input.preset ? presetConfigs(input.preset, quota.erasureDeadlineDays) : {};
  const { explicit, parsed } = validateConfigs({ ...preset, ...input.configs });
  const warnings = configWarnings(parsed, input.partitions);
  await assertPartitionQuota(deps, identity.tenantId, input.partitions);
  const now = new Date(deps.clock.now());
  const existing = await deps.prisma.topic.findUnique({
    where: { organizationId_name: { organizationId: identity.tenantId, name: input.name } },
  });
  if (existing) throw new AppError("TOPIC_EXISTS", `Topic "${input.name}" already exists.`);
  const draft = {
    organizationId: identity.tenantId,
    name: input.name,
    partitionCount: input.partitions,
    configs: explicit,
  };
  if (input.validateOnly) {
    const preview = { ...draft, id: "", createdAt: now, updatedAt: now } as Topic;
    return { topic: topicSummary(preview), validateOnly: true, warnings };
  }
  try {
    const topic = await deps.prisma.$transaction(async (tx) => {
      await reservePartitions(tx, quota, identity.tenantId, input.partitions);
      const created = await tx.topic.create({ data: { ...draft, createdAt: now } });
      await tx.partition.createMany({
        data: Array.from({ length: input.partitions }, (_, index) => ({
          topicId: created.id,
          index,
          createdAt: now,
        })),
      });
      await auditAs(tx, identity, {
        action: "topic.created",
        target: { type: "topic", id: created.id },
        data: {
          name: input.name,
          partitions: input.partitions,
          preset: input.preset ?? null,
          configs: explicit,
        },
        now,
      });
      return created;
    }, PARTITION_CHANGE_TRANSACTION);
    // "Not found" may be cached from a produce that came first.
    forgetTopicRouting(deps.prisma, identity.tenantId, input.name);
    return { topic: topicSummary(topic), validateOnly: false, warnings };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("TOPIC_EXISTS", `Topic "${input.name}" already exists.`);
    throw error;
  }
}

export async function listTopics(
  deps: TopicDeps & { dataPlane: DataPlane },
  identity: Identity,
  input: { limit: number; cursor?: string | undefined },
): Promise<{ topics: TopicListItem[]; nextCursor: string | null }> {
  const where: Prisma.TopicWhereInput = { organizationId: identity.tenantId };
  if (input.cursor) where.name = { gt: decodeCursor("topics", input.cursor, 1)[0]! };
  const rows = await deps.prisma.topic.findMany({
    where,
    orderBy: { name: "asc" },
    take: input.limit + 1,
    include: { partitions: { select: { id: true, ownerWorkerId: true, stats: true } } },
  });
  // A key limited by rules sees its rules' topics only (the cursor still moves over every row).
  const visible = rows.slice(0, input.limit);
  const last = visible.at(-1);
  const page = visible.filter((t) => mayDescribe(identity, "topic", t.name));
  const warnings = await loadTopicWarnings(
    deps,
    identity,
    page.map(({ partitions, ...topic }) => ({ topic, partitions })),
  );
  return {
    topics: page.map(({ partitions, ...topic }) => ({
      ...topicSummary(topic),
      usage: topicUsage(partitions.map((p) => p.stats)),
      warnings: warnings.get(topic.id) ?? [],
    })),
    nextCursor: rows.length > input.limit && last ? encodeCursor("topics", [last.name]) : null,
  };
}

export async function deleteTopic(
  deps: TopicDeps,
  identity: Identity,
  name: string,
): Promise<{ name: string; deleted: true }> {
  assertNotProtected(name, "deleted");
  const topic = await findTopic(deps.prisma, identity.tenantId, name);
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    // deleteMany with the tenant in the filter: a concurrent delete is not an error, and the row is never another tenant's.
    await tx.topic.deleteMany({ where: { id: topic.id, organizationId: identity.tenantId } });
    await auditAs(tx, identity, {
      action: "topic.deleted",
      target: { type: "topic", id: topic.id },
      data: { name, partitions: topic.partitionCount },
      now,
    });
  });
  forgetTopicRouting(deps.prisma, identity.tenantId, name);
  return { name, deleted: true };
}
