/** A partition's matches, in offset order. */
export interface PartitionMatches<T extends { timestamp: number; offset: number }> {
  partition: number;
  records: readonly T[];
}

/**
 * Merges partitions' matches by (timestamp, partition, offset), taking at most `limit`. It takes
 * from the head of each partition's list, so what it keeps of a partition is a prefix of it in
 * offset order: a scan that continues after the last kept offset misses nothing.
 */
export function mergeByTime<T extends { timestamp: number; offset: number }>(
  lists: readonly PartitionMatches<T>[],
  limit: number,
): { partition: number; record: T }[] {
  const heads = lists.map(() => 0);
  const merged: { partition: number; record: T }[] = [];
  while (merged.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const candidate = lists[i]!.records[heads[i]!];
      if (candidate === undefined) continue;
      if (best === -1) {
        best = i;
        continue;
      }
      const current = lists[best]!.records[heads[best]!]!;
      if (
        candidate.timestamp < current.timestamp ||
        (candidate.timestamp === current.timestamp && lists[i]!.partition < lists[best]!.partition)
      ) {
        best = i;
      }
    }
    if (best === -1) break;
    merged.push({ partition: lists[best]!.partition, record: lists[best]!.records[heads[best]!]! });
    heads[best] = heads[best]! + 1;
  }
  return merged;
}
