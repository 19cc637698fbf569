import type { DataPlane } from "@lastword/dataplane";
import type { Partition, PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { Clock } from "./api-deps";
import { findTopic, topicSummary } from "./topic.service";
import { describeConfigs, storedConfigs } from "./topic-config";
import { loadTopicWarnings } from "./topic-warnings";

export interface DescribeDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function partitionDetail(p: Partition) {
  const stats = (p.stats ?? null) as Record<string, unknown> | null;
  return {
    partition: p.index,
    ownerWorkerId: p.ownerWorkerId,
    leaseExpiresAt: p.leaseExpiresAt?.toISOString() ?? null,
    sizeBytes: numberOr(stats?.sizeBytes),
    logStartOffset: numberOr(stats?.logStartOffset),
    logEndOffset: numberOr(stats?.logEndOffset),
    dirtyRatio: numberOr(stats?.dirtyRatio),
    statsUpdatedAt: typeof stats?.updatedAt === "string" ? stats.updatedAt : null,
    stats,
  };
}

/** Every config with value, default, source and doc; partitions with offsets, size and dirty ratio. */
export async function describeTopic(deps: DescribeDeps, identity: Identity, name: string) {
  const topic = await findTopic(deps.prisma, identity.tenantId, name);
  const partitions = await deps.prisma.partition.findMany({
    where: { topicId: topic.id },
    orderBy: { index: "asc" },
  });
  const warnings = await loadTopicWarnings(deps, identity, [{ topic, partitions }]);
  return {
    ...topicSummary(topic),
    configEntries: describeConfigs(storedConfigs(topic.configs)),
    partitionDetails: partitions.map(partitionDetail),
    warnings: warnings.get(topic.id) ?? [],
  };
}
