import type { Partition, PrismaClient } from "@lastword/db";
import { parseTopicConfig } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import type { DataPlane } from "../records/data-plane";
import type { Clock } from "../trpc/context";
import { findTopic, topicSummary } from "./topic.service";
import { describeConfigs, isCompacted, storedConfigs } from "./topic-config";
import { type ConfigWarning, configWarnings } from "./topic-guardrails";

export interface DescribeDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

/** Latest records sampled per partition to judge whether keys repeat. */
export const KEY_SAMPLE_RECORDS = 500;
const KEY_SAMPLE_PARTITIONS = 4;
const KEY_SAMPLE_MIN_RECORDS = 100;
const UNIQUE_KEY_SHARE = 0.95;

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

// Compaction reclaims only superseded keys; if nearly every recent record has a fresh key, it
// will reclaim almost nothing and the topic grows like a delete-policy topic without retention.
async function uniqueKeysWarning(deps: DescribeDeps, partitions: Partition[]): Promise<ConfigWarning | null> {
  const owned = partitions.filter((p) => p.ownerWorkerId !== null).slice(0, KEY_SAMPLE_PARTITIONS);
  let records = 0;
  let distinct = 0;
  for (const p of owned) {
    try {
      const { latest } = await deps.dataPlane.listOffsets({ partitionId: p.id });
      const from = Math.max(0, latest - KEY_SAMPLE_RECORDS);
      const page = await deps.dataPlane.fetch({ partitionId: p.id, offset: from, limit: KEY_SAMPLE_RECORDS });
      const keys = new Set(page.records.map((r) => r.key?.toString("base64") ?? ""));
      records += page.records.length;
      distinct += keys.size;
    } catch {
      // A partition that cannot be sampled right now just does not count.
    }
  }
  if (records < KEY_SAMPLE_MIN_RECORDS || distinct / records < UNIQUE_KEY_SHARE) return null;
  return {
    code: "KEYS_LOOK_UNIQUE",
    message: `${distinct} of the latest ${records} records have distinct keys: compaction will reclaim almost nothing. Use a delete (or compact,delete) policy with retention, or key records by the entity they update.`,
  };
}

/** Every config with value, default, source and doc; partitions with offsets, size and dirty ratio. */
export async function describeTopic(deps: DescribeDeps, identity: Identity, name: string) {
  const topic = await findTopic(deps.prisma, identity.tenantId, name);
  const partitions = await deps.prisma.partition.findMany({
    where: { topicId: topic.id },
    orderBy: { index: "asc" },
  });
  const explicit = storedConfigs(topic.configs);
  const warnings = configWarnings(parseTopicConfig(explicit), topic.partitionCount);
  if (isCompacted(explicit)) {
    const unique = await uniqueKeysWarning(deps, partitions);
    if (unique) warnings.push(unique);
  }
  return {
    ...topicSummary(topic),
    configEntries: describeConfigs(explicit),
    partitionDetails: partitions.map(partitionDetail),
    warnings,
  };
}
