import { randomUUID } from "node:crypto";
import type { RemoteSegmentEntry } from "@lastword/logstore";
import { z } from "zod";

// The objects a partition owns alone in object storage, and how they are named. Shared commit
// objects (commit-window.ts) are `commit/<worker>/…`; these carry the partition in their key:
//   segments/<partitionId>/<time>-<base>-<epoch>-<uuid>     one closed segment, byte for byte
//   tails/<partitionId>/<time>-<base>-<epoch>-<uuid>        a partition's consolidated commit rows
// beside a segment object, sidecars named by suffix:
//   <segment key>.snapshot   the producer-state snapshot at the segment's end (when the log kept one)
//   <segment key>.keys       the segment's key filter (key-filter.ts)
// The time (base 36, the writer's clock) comes first so the orphan sweeper can age an object by
// its key alone, as it does commit objects.

export const SEGMENT_PREFIX = "segments/";
export const TAIL_PREFIX = "tails/";
export const SNAPSHOT_SUFFIX = ".snapshot";
export const KEY_FILTER_SUFFIX = ".keys";

export function segmentObjectKey(
  partitionId: string,
  baseOffset: number,
  epoch: number,
  now = Date.now(),
): string {
  return partitionObjectKey(SEGMENT_PREFIX, partitionId, baseOffset, epoch, now);
}

export function tailObjectKey(
  partitionId: string,
  baseOffset: number,
  epoch: number,
  now = Date.now(),
): string {
  return partitionObjectKey(TAIL_PREFIX, partitionId, baseOffset, epoch, now);
}

function partitionObjectKey(
  prefix: string,
  partitionId: string,
  base: number,
  epoch: number,
  now: number,
): string {
  return `${prefix}${partitionId}/${now.toString(36).padStart(9, "0")}-${base}-${epoch}-${randomUUID()}`;
}

/** When a partition object was written (its writer's clock), from its key; null for another key. */
export function partitionObjectTime(key: string): number | null {
  const match = /^(?:segments|tails)\/[^/]+\/([0-9a-z]{9})-\d+-\d+-[0-9a-f-]{36}(?:\.snapshot|\.keys)?$/.exec(
    key,
  );
  return match ? Number.parseInt(match[1]!, 36) : null;
}

/** The main object a sidecar belongs to (the key itself for a main object). */
export function mainObjectKey(key: string): string {
  for (const suffix of [SNAPSHOT_SUFFIX, KEY_FILTER_SUFFIX])
    if (key.endsWith(suffix)) return key.slice(0, -suffix.length);
  return key;
}

/** What a segment row keeps of its segment, so a worker can lay it down as evicted without its bytes. */
const segmentObjectStatsSchema = z.object({
  nextOffset: z.number().int(),
  records: z.number().int(),
  tombstones: z.number().int(),
  firstBatchTimestamp: z.number().int(),
  maxTimestamp: z.number().int(),
  offsetOfMaxTimestamp: z.number().int(),
  largestTimestampMs: z.number().int(),
  /** A `.snapshot` sidecar was uploaded: the producer state as of the segment's range end + 1. */
  snapshot: z.boolean(),
  /** A `.keys` sidecar was uploaded. */
  keyFilter: z.boolean(),
});

export type SegmentObjectStats = z.infer<typeof segmentObjectStatsSchema>;

export function parseSegmentObjectStats(raw: unknown): SegmentObjectStats {
  return segmentObjectStatsSchema.parse(raw);
}

/** What the log store's remote entry names: enough to fetch and check the bytes. */
const segmentRefSchema = z.object({ key: z.string(), sha256: z.string(), size: z.number().int() });
export type SegmentRef = z.infer<typeof segmentRefSchema>;

export function encodeSegmentRef(ref: SegmentRef): string {
  return JSON.stringify(ref);
}

export function decodeSegmentRef(text: string): SegmentRef {
  return segmentRefSchema.parse(JSON.parse(text));
}

/** The log store's entry for a segment row, to lay the segment down as evicted. */
export function remoteEntryOf(row: {
  objectKey: string;
  sha256: string;
  byteSize: number;
  baseOffset: number;
  stats: SegmentObjectStats;
}): RemoteSegmentEntry {
  const { stats } = row;
  return {
    baseOffset: row.baseOffset,
    nextOffset: stats.nextOffset,
    sizeBytes: row.byteSize,
    records: stats.records,
    tombstones: stats.tombstones,
    firstBatchTimestamp: stats.firstBatchTimestamp,
    maxTimestamp: stats.maxTimestamp,
    offsetOfMaxTimestamp: stats.offsetOfMaxTimestamp,
    largestTimestampMs: stats.largestTimestampMs,
    ref: encodeSegmentRef({ key: row.objectKey, sha256: row.sha256, size: row.byteSize }),
  };
}
