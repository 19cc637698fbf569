import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import { cachePerOwner } from "../cache/lookup-cache";
import type { Clock } from "./api-deps";

/** Latest records sampled per partition to judge whether keys repeat. */
const KEY_SAMPLE_RECORDS = 500;
const KEY_SAMPLE_PARTITIONS = 4;
/**
 * How long one topic's sample is reused: the topic list refreshes every few seconds and a topic's
 * key distribution changes slowly, so the list and the topic page share a sample for this long.
 */
export const KEY_SAMPLE_CACHE_MS = 60_000;

/** Records read from the ends of a topic's partitions and how many distinct keys they held. */
export interface KeySample {
  records: number;
  distinct: number;
}

export interface KeySampleDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

const samples = cachePerOwner<KeySample>({ ttlMs: KEY_SAMPLE_CACHE_MS });

async function sampleKeys(
  dataPlane: DataPlane,
  partitions: readonly { id: string; ownerWorkerId: string | null }[],
): Promise<KeySample> {
  const owned = partitions.filter((p) => p.ownerWorkerId !== null).slice(0, KEY_SAMPLE_PARTITIONS);
  let records = 0;
  let distinct = 0;
  for (const p of owned) {
    try {
      const { latest } = await dataPlane.listOffsets({ partitionId: p.id });
      const from = Math.max(0, latest - KEY_SAMPLE_RECORDS);
      const page = await dataPlane.fetch({ partitionId: p.id, offset: from, limit: KEY_SAMPLE_RECORDS });
      const keys = new Set(page.records.map((r) => r.key?.toString("base64") ?? ""));
      records += page.records.length;
      distinct += keys.size;
    } catch {
      // A partition that cannot be sampled right now just does not count.
    }
  }
  return { records, distinct };
}

/** The latest keys of a topic's first owned partitions (cached per topic for KEY_SAMPLE_CACHE_MS). */
export function topicKeySample(
  deps: KeySampleDeps,
  topicId: string,
  partitions: readonly { id: string; ownerWorkerId: string | null }[],
): Promise<KeySample> {
  return samples.of(deps.prisma, deps.clock).get(topicId, () => sampleKeys(deps.dataPlane, partitions));
}
