import { parseTopicConfig } from "@lastword/topic-config";
import type { Identity } from "../auth/request-identity";
import { cachePerOwner, type LookupDeps } from "../cache/lookup-cache";
import { findTopic } from "./topic.service";
import { storedConfigs } from "./topic-config";
import type { TopicDurabilityInput, TopicDurabilityOutput } from "./topic-durability.schema";

/** The log end a partition's owner last reported (Partition.stats, written by apps/worker). */
function reportedLogEnd(stats: unknown): { logEndOffset: number; reportedAt: string | null } | null {
  if (typeof stats !== "object" || stats === null) return null;
  const s = stats as Record<string, unknown>;
  if (typeof s.logEndOffset !== "number") return null;
  return { logEndOffset: s.logEndOffset, reportedAt: typeof s.updatedAt === "string" ? s.updatedAt : null };
}

/**
 * A topic's durability from the manifest (Partition.durableEndOffset, PartitionObject rows) and the
 * owners' stats reports. The log end is as of the last report, so it may trail the durable end for
 * a tick: the offsets not yet uploaded never go below zero.
 */
export async function topicDurability(
  deps: LookupDeps,
  identity: Identity,
  input: TopicDurabilityInput,
): Promise<TopicDurabilityOutput> {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const [partitions, objects] = await Promise.all([
    deps.prisma.partition.findMany({
      where: { topicId: topic.id },
      select: { id: true, index: true, stats: true, durableEndOffset: true },
      orderBy: { index: "asc" },
    }),
    deps.prisma.partitionObject.groupBy({
      by: ["partitionId"],
      where: { partition: { topicId: topic.id } },
      _count: { _all: true },
      _sum: { byteSize: true },
      _max: { createdAt: true },
    }),
  ]);
  const objectsOf = new Map(objects.map((o) => [o.partitionId, o]));
  const rows = partitions.map((p) => {
    const reported = reportedLogEnd(p.stats);
    const durableEndOffset = p.durableEndOffset === null ? null : Number(p.durableEndOffset);
    const o = objectsOf.get(p.id);
    return {
      partition: p.index,
      logEndOffset: reported?.logEndOffset ?? null,
      durableEndOffset,
      pendingOffsets:
        reported && durableEndOffset !== null ? Math.max(0, reported.logEndOffset - durableEndOffset) : null,
      objects: o?._count._all ?? 0,
      objectBytes: o?._sum.byteSize ?? 0,
      lastObjectAt: o?._max.createdAt?.toISOString() ?? null,
      reportedAt: reported?.reportedAt ?? null,
    };
  });
  const lastObjectAt =
    rows
      .map((r) => r.lastObjectAt)
      .filter((at): at is string => at !== null)
      .sort()
      .at(-1) ?? null;
  return {
    mode: parseTopicConfig(storedConfigs(topic.configs)).durability,
    objectStore: rows.some((r) => r.durableEndOffset !== null) || (await fleetHasObjectStore(deps)),
    lastObjectAt,
    partitions: rows,
  };
}

/**
 * How long the fleet-wide answer is reused: without a store it is a scan of every partition row,
 * and a store is configured by restarting the workers, not from one poll to the next.
 */
const FLEET_STORE_CACHE_MS = 30_000;
const fleetStores = cachePerOwner<{ objectStore: boolean }>({ ttlMs: FLEET_STORE_CACHE_MS, maxEntries: 1 });

/**
 * A worker with an object store sets the durable end of every partition it opens, so a fleet
 * without one has it null everywhere. Asked only when this topic shows none (a topic whose
 * partitions no such worker has opened yet, in a fleet that has a store).
 */
async function fleetHasObjectStore(deps: LookupDeps): Promise<boolean> {
  const answer = await fleetStores.of(deps.prisma, deps.clock).get("fleet", async () => {
    const any = await deps.prisma.partition.findFirst({
      where: { durableEndOffset: { not: null } },
      select: { id: true },
    });
    return { objectStore: any !== null };
  });
  return answer.objectStore;
}
