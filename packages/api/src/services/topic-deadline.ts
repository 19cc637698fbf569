import type { PrismaClient, Topic } from "@lastword/db";
import { DEFAULT_PROOF_TIMINGS, objectStoreReportSchema, type Preflight } from "@lastword/erasure";
import { parseTopicConfig } from "@lastword/topic-config";
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

/** What the live workers reported of their object store and proof timings (the slowest of each). */
interface FleetProof {
  /** 0 without versioning, null with versions kept and no expiry, undefined without an object store. */
  keeps: number | null | undefined;
  tickMs: number | undefined;
  objects: { syncIntervalMs: number; consolidateAfterMs: number } | undefined;
}

/**
 * How long the fleet's object store keeps an old version of a deleted object, from what the live
 * workers read of it at start (the longest), and the slowest tick and tiering timings they run
 * with: what the proof of an erasure waits for.
 */
async function fleetProof(prisma: PrismaClient): Promise<FleetProof> {
  const workers = await prisma.$queryRaw<{ objectStore: unknown }[]>`
    SELECT "objectStore" FROM "Worker"
    WHERE "objectStore" IS NOT NULL AND "stoppedAt" IS NULL
      AND "heartbeatAt" > now() AT TIME ZONE 'UTC' - ${LIVE_WORKER_MS} * interval '1 millisecond'`;
  const fleet: FleetProof = { keeps: undefined, tickMs: undefined, objects: undefined };
  for (const { objectStore } of workers) {
    const report = objectStoreReportSchema.parse(objectStore);
    const keeps =
      report.versioning === "disabled"
        ? 0
        : report.noncurrentExpiryDays === null
          ? null
          : report.noncurrentExpiryDays * 86_400_000;
    if (keeps === null || fleet.keeps === null) fleet.keeps = null;
    else fleet.keeps = Math.max(fleet.keeps ?? 0, keeps);
    if (report.tickMs !== undefined) fleet.tickMs = Math.max(fleet.tickMs ?? 0, report.tickMs);
    const defaults = DEFAULT_PROOF_TIMINGS.objects;
    fleet.objects = {
      syncIntervalMs: Math.max(
        fleet.objects?.syncIntervalMs ?? 0,
        report.syncIntervalMs ?? defaults.syncIntervalMs,
      ),
      consolidateAfterMs: Math.max(
        fleet.objects?.consolidateAfterMs ?? 0,
        report.consolidateAfterMs ?? defaults.consolidateAfterMs,
      ),
    };
  }
  return fleet;
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
  const [passes, fleet] = await Promise.all([
    passEstimatesMs(
      prisma,
      topics.map((t) => t.id),
    ),
    fleetProof(prisma),
  ]);
  return new Map(
    topics.map((topic) => [
      topic.id,
      erasurePreflight({
        config: parseTopicConfig(storedConfigs(topic.configs)),
        deadlineMs,
        passEstimateMs: passes.get(topic.id),
        schedulerTickMs: fleet.tickMs,
        bucketKeepsVersionsMs: fleet.keeps,
        objects: fleet.objects,
      }),
    ]),
  );
}
