const MINUTE_MS = 60_000;

/** One partition's sample of one minute, as the worker wrote it (PartitionSample). */
export interface PartitionMinute {
  partitionId: string;
  atMs: number;
  sizeBytes: number;
  dirtyBytes: number;
  logEndOffset: number;
  fetchedRecords: number;
}

export interface TopicMinute {
  at: string;
  sizeBytes: number;
  liveBytes: number;
  producedRecords: number | null;
  fetchedRecords: number;
}

/**
 * Partition samples summed per minute, oldest first (records fetched are counted by the workers as
 * they serve them). Records produced in a minute are the end
 * offsets' growth since the minute before, counted over the partitions sampled in both (a partition
 * missing a minute, e.g. during a handover, adds nothing rather than its whole log).
 */
export function topicMinutes(samples: readonly PartitionMinute[]): TopicMinute[] {
  const byMinute = new Map<number, PartitionMinute[]>();
  for (const sample of samples) byMinute.set(sample.atMs, [...(byMinute.get(sample.atMs) ?? []), sample]);
  const ends = new Map(samples.map((s) => [`${s.partitionId}@${s.atMs}`, s.logEndOffset]));
  return [...byMinute.keys()]
    .sort((a, b) => a - b)
    .map((atMs) => {
      const rows = byMinute.get(atMs) ?? [];
      const sizeBytes = rows.reduce((sum, r) => sum + r.sizeBytes, 0);
      const dirtyBytes = rows.reduce((sum, r) => sum + r.dirtyBytes, 0);
      const growth = rows.flatMap((r) => {
        const before = ends.get(`${r.partitionId}@${atMs - MINUTE_MS}`);
        return before === undefined ? [] : [Math.max(0, r.logEndOffset - before)];
      });
      return {
        at: new Date(atMs).toISOString(),
        sizeBytes,
        liveBytes: Math.max(0, sizeBytes - dirtyBytes),
        producedRecords: growth.length === 0 ? null : growth.reduce((sum, n) => sum + n, 0),
        fetchedRecords: rows.reduce((sum, r) => sum + r.fetchedRecords, 0),
      };
    });
}
