import type { Identity } from "../auth/request-identity";
import { LATEST_VIEW_SUFFIX } from "../records/latest-view-name";
import type { ApiDeps } from "./api-deps";
import { findTopic } from "./topic.service";
import { isCompacted, storedConfigs } from "./topic-config";

/**
 * A worker is a live broker while its heartbeat is younger than this: the worker's default
 * lease TTL (WORKER_LEASE_TTL_MS), which is also how long the brokers' own metadata keeps one.
 */
export const BROKER_LIVENESS_MS = 10_000;

/** The SASL mechanisms every worker's Kafka listener accepts, with an API key id and secret. */
export const KAFKA_SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] as const;

/**
 * Where a Kafka client connects: the advertised listener of every live, running worker. The
 * brokers are shared by all tenants (the SASL key picks the tenant); with `topic`, also the name of
 * the tenant's topic's `<topic>.latest` view when the worker serves one.
 */
export async function kafkaConnection(
  deps: Pick<ApiDeps, "prisma" | "clock">,
  identity: Identity,
  input: { topic?: string } = {},
) {
  const latestView = input.topic === undefined ? null : await latestViewOf(deps, identity, input.topic);
  const workers = await deps.prisma.worker.findMany({
    where: {
      stoppedAt: null,
      kafkaHost: { not: null },
      kafkaPort: { not: null },
      heartbeatAt: { gt: new Date(deps.clock.now() - BROKER_LIVENESS_MS) },
    },
    select: { kafkaHost: true, kafkaPort: true },
    orderBy: { nodeId: "asc" },
  });
  const bootstrapServers = workers.flatMap((w) =>
    w.kafkaHost !== null && w.kafkaPort !== null ? [`${w.kafkaHost}:${w.kafkaPort}`] : [],
  );
  return {
    bootstrapServers,
    securityProtocol: "SASL_PLAINTEXT" as const,
    mechanisms: [...KAFKA_SASL_MECHANISMS],
    latestView,
  };
}

/**
 * The view the workers list for a compacted topic; none for a topic that is not compacted, or
 * whose view name a topic of the tenant holds (one named before the suffix was reserved).
 */
async function latestViewOf(
  deps: Pick<ApiDeps, "prisma">,
  identity: Identity,
  name: string,
): Promise<string | null> {
  const topic = await findTopic(deps.prisma, identity.tenantId, name);
  if (!isCompacted(storedConfigs(topic.configs))) return null;
  const view = `${name}${LATEST_VIEW_SUFFIX}`;
  const taken = await deps.prisma.topic.findUnique({
    where: { organizationId_name: { organizationId: identity.tenantId, name: view } },
    select: { id: true },
  });
  return taken ? null : view;
}
