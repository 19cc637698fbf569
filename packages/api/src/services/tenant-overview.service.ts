import type { PrismaClient } from "@lastword/db";
import { mayDescribe } from "../auth/act-authorization";
import type { Identity } from "../auth/request-identity";
import type { Clock } from "./api-deps";
import { RECENT_CLIENTS_MS } from "./kafka-clients.service";
import { isCompacted, storedConfigs } from "./topic-config";
import { topicUsage } from "./topic-usage";

/**
 * Workers whose last heartbeat is older than this are left out of the connection count: stopped
 * without saying so, their connections are gone (a worker heartbeats every lease TTL / 3).
 */
export const LIVE_WORKER_MS = 60_000;

/**
 * The tenant's open Kafka connections summed over the live workers' last heartbeats
 * (Worker.kafkaConnections), and the oldest of those heartbeats: the figure is as fresh as that.
 */
async function openKafkaConnections(prisma: PrismaClient, tenantId: string) {
  const rows = await prisma.$queryRaw<{ open: bigint | null; workers: bigint; asOf: Date | null }[]>`
    SELECT SUM(COALESCE(("kafkaConnections"->>${tenantId})::bigint, 0))::bigint AS "open",
      COUNT(*)::bigint AS "workers", MIN("heartbeatAt") AS "asOf"
    FROM "Worker"
    WHERE "stoppedAt" IS NULL AND "kafkaConnections" IS NOT NULL
      AND "heartbeatAt" >= (now() AT TIME ZONE 'UTC') - make_interval(secs => ${LIVE_WORKER_MS / 1000})`;
  const row = rows[0];
  return {
    open: Number(row?.open ?? 0),
    workers: Number(row?.workers ?? 0),
    asOf: row?.asOf ? row.asOf.toISOString() : null,
  };
}

/** How many of the dirtiest topics the overview lists. */
export const DIRTIEST_TOPICS = 5;

/**
 * What the tenant's home page needs beyond `tenant.usage`: bytes held in object storage (the
 * manifests' objects), the Kafka clients seen in the last day, the Kafka connections open now, and the compacted topics with the
 * most dirty bytes (workers' last reports, as the topic list computes them). Erasure deadlines and
 * lagging groups come from their own procedures, each behind its own scope.
 */
export async function tenantOverview(deps: { prisma: PrismaClient; clock: Clock }, identity: Identity) {
  const tenantId = identity.tenantId;
  const [objects, clients, topics, connections] = await Promise.all([
    deps.prisma.partitionObject.aggregate({
      where: { partition: { topic: { organizationId: tenantId } } },
      _count: { _all: true },
      _sum: { byteSize: true },
    }),
    deps.prisma.kafkaClientSeen.findMany({
      where: {
        topic: { organizationId: tenantId },
        lastSeenAt: { gte: new Date(deps.clock.now() - RECENT_CLIENTS_MS) },
      },
      select: { clientId: true, softwareName: true, softwareVersion: true },
      distinct: ["clientId", "softwareName", "softwareVersion"],
    }),
    deps.prisma.topic.findMany({
      where: { organizationId: tenantId },
      select: { name: true, configs: true, partitions: { select: { stats: true } } },
    }),
    openKafkaConnections(deps.prisma, tenantId),
  ]);
  const dirtiest = topics
    // Only a compacting topic has a cleaner to get behind; delete-only topics are never dirty.
    .filter((t) => mayDescribe(identity, "topic", t.name) && isCompacted(storedConfigs(t.configs)))
    .map((t) => ({ topic: t.name, ...topicUsage(t.partitions.map((p) => p.stats)) }))
    .filter((t) => t.dirtyBytes > 0)
    .sort((a, b) => b.dirtyBytes - a.dirtyBytes || a.topic.localeCompare(b.topic))
    .slice(0, DIRTIEST_TOPICS)
    .map((t) => ({
      topic: t.topic,
      dirtyBytes: t.dirtyBytes,
      dirtyRatio: t.dirtyRatio,
      sizeBytes: t.sizeBytes,
    }));
  return {
    objectStorage: { objects: objects._count._all, bytes: objects._sum.byteSize ?? 0 },
    kafkaClientsSeen: clients.length,
    kafkaConnections: connections,
    dirtiestTopics: dirtiest,
  };
}
