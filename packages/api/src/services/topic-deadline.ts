import type { PrismaClient, Topic } from "@lastword/db";
import type { Preflight } from "@lastword/erasure";
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

/**
 * Each topic's erasure preflight against a deadline `deadlineMs` away, from its configs and its
 * measured pass time: what the compliance page, an erasure request and the topic warnings all use.
 */
export async function topicPreflights(
  prisma: PrismaClient,
  topics: readonly Pick<Topic, "id" | "configs">[],
  deadlineMs: number,
): Promise<Map<string, Preflight>> {
  const passes = await passEstimatesMs(
    prisma,
    topics.map((t) => t.id),
  );
  return new Map(
    topics.map((topic) => [
      topic.id,
      erasurePreflight({
        config: parseTopicConfig(storedConfigs(topic.configs)),
        deadlineMs,
        passEstimateMs: passes.get(topic.id),
      }),
    ]),
  );
}
