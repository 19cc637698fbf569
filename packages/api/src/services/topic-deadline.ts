import type { PrismaClient, Topic } from "@lastword/db";
import { objectStoreReportSchema, type Preflight } from "@lastword/erasure";
import { parseTopicConfig } from "@lastword/logstore";
import { erasurePreflight } from "./erasure-preflight";
import { storedConfigs } from "./topic-config";

/**
 * The slowest recent cleaner pass of each topic's partitions (what a pass is estimated to take),
 * for many topics in one query; a topic with no finished pass is absent.
 */
async function passEstimatesMs(
  prisma: PrismaClient,
  topicIds: readonly string[],
): Promise<Map<string, number>> {
  if (topicIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ topicId: string; ms: number | null }[]>`
    SELECT p."topicId", MAX(r."durationMs") AS "ms"
    FROM "CleanerRun" r JOIN "Partition" p ON p."id" = r."partitionId"
    WHERE p."topicId" = ANY(${[...topicIds]}::text[]) AND r."durationMs" IS NOT NULL
    GROUP BY p."topicId"`;
  return new Map(rows.flatMap((r) => (r.ms === null ? [] : [[r.topicId, Number(r.ms)]])));
}

/** A worker heard of within this long counts: its object store is the fleet's. */
const LIVE_WORKER_MS = 30_000;

/**
 * How long the fleet's object store keeps an old version of a deleted object, from what the live
 * workers read of it at start (the longest): 0 without versioning, null with versions kept and no
 * expiry, undefined when no live worker has an object store.
 */
async function bucketKeepsVersionsMs(prisma: PrismaClient): Promise<number | null | undefined> {
  const workers = await prisma.$queryRaw<{ objectStore: unknown }[]>`
    SELECT "objectStore" FROM "Worker"
    WHERE "objectStore" IS NOT NULL AND "stoppedAt" IS NULL
      AND "heartbeatAt" > now() AT TIME ZONE 'UTC' - ${LIVE_WORKER_MS} * interval '1 millisecond'`;
  let longest: number | null | undefined;
  for (const { objectStore } of workers) {
    const report = objectStoreReportSchema.parse(objectStore);
    const keeps =
      report.versioning === "disabled"
        ? 0
        : report.noncurrentExpiryDays === null
          ? null
          : report.noncurrentExpiryDays * 86_400_000;
    if (keeps === null || longest === null) longest = null;
    else longest = Math.max(longest ?? 0, keeps);
  }
  return longest;
}

/**
 * Each topic's erasure preflight against a deadline `deadlineMs` away, from its configs, its
 * measured pass time and the fleet's object store: what the compliance page, an erasure request
 * and the topic warnings all use.
 */
export async function topicPreflights(
  prisma: PrismaClient,
  topics: readonly Pick<Topic, "id" | "configs">[],
  deadlineMs: number,
): Promise<Map<string, Preflight>> {
  const [passes, keeps] = await Promise.all([
    passEstimatesMs(
      prisma,
      topics.map((t) => t.id),
    ),
    bucketKeepsVersionsMs(prisma),
  ]);
  return new Map(
    topics.map((topic) => [
      topic.id,
      erasurePreflight({
        config: parseTopicConfig(storedConfigs(topic.configs)),
        deadlineMs,
        passEstimateMs: passes.get(topic.id),
        bucketKeepsVersionsMs: keeps,
      }),
    ]),
  );
}
