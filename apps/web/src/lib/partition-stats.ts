import { z } from "zod";

/**
 * What a partition's owner reports each scheduler tick (Partition.stats, written by the worker).
 * The API passes it through untyped, so it is parsed here; a worker that has not reported yet,
 * or reports an older shape, yields null and the console says so instead of guessing.
 */
const partitionStatsSchema = z.object({
  sizeBytes: z.number(),
  segments: z.number(),
  logStartOffset: z.number(),
  logEndOffset: z.number(),
  dirtyRatio: z.number(),
  cleanable: z.boolean(),
  nextCleanDueAt: z.string().nullable(),
  lastCleanAt: z.string().nullable(),
  uncleanable: z
    .object({ error: z.string(), failures: z.number(), held: z.boolean(), retryAt: z.string().nullable() })
    .nullable(),
  updatedAt: z.string(),
});

export type PartitionStats = z.infer<typeof partitionStatsSchema>;

export function parsePartitionStats(stats: unknown): PartitionStats | null {
  const parsed = partitionStatsSchema.safeParse(stats);
  return parsed.success ? parsed.data : null;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
