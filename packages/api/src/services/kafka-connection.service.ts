import type { ApiDeps } from "../trpc/context";

/**
 * A worker is a live broker while its heartbeat is younger than this: the worker's default
 * lease TTL (WORKER_LEASE_TTL_MS), which is also how long the brokers' own metadata keeps one.
 */
export const BROKER_LIVENESS_MS = 10_000;

/** The SASL mechanisms every worker's Kafka listener accepts, with an API key id and secret. */
export const KAFKA_SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] as const;

/**
 * Where a Kafka client connects: the advertised listener of every live, running worker. The
 * brokers are shared by all tenants (the SASL key picks the tenant), so nothing here is a tenant's.
 */
export async function kafkaConnection(deps: Pick<ApiDeps, "prisma" | "clock">) {
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
  };
}
