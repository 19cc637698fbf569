import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { Clock } from "./api-deps";
import { findTopic } from "./topic.service";

/** What "recently" means on the topic page: clients seen over the Kafka port in the last day. */
export const RECENT_CLIENTS_MS = 24 * 60 * 60 * 1000;

/**
 * The Kafka clients that produced to or consumed from the tenant's topic recently (rows the
 * workers write behind, see the worker's client sightings), most recently seen first.
 */
export async function listKafkaClients(
  deps: { prisma: PrismaClient; clock: Clock },
  identity: Identity,
  input: { topic: string },
) {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const rows = await deps.prisma.kafkaClientSeen.findMany({
    where: { topicId: topic.id, lastSeenAt: { gte: new Date(deps.clock.now() - RECENT_CLIENTS_MS) } },
    orderBy: { lastSeenAt: "desc" },
    take: 100,
  });
  return {
    clients: rows.map((r) => ({
      role: r.role as "producer" | "consumer",
      clientId: r.clientId,
      softwareName: r.softwareName,
      softwareVersion: r.softwareVersion,
      lastSeenAt: r.lastSeenAt.toISOString(),
    })),
  };
}
