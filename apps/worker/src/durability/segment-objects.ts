import type { RemoteSegmentEntry } from "@lastword/logstore";
import { z } from "zod";

// What a partition's segment row records of its object (the object's key: bucket-layout.ts), and
// the reference the log store keeps to fetch an evicted segment back.

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
  /** A `.index` sidecar was uploaded (rows written before it existed have none). */
  keyIndex: z.boolean().default(false),
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
