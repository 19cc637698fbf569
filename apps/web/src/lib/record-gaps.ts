/** A run of offsets the log no longer holds. */
export interface OffsetGap {
  fromOffset: number;
  toOffset: number;
}

/**
 * The gap before each record, keyed `partition:offset`. Compaction removes records but never
 * renumbers offsets, so a missing offset between two records of one partition that a scan read
 * one after the other is shown, not silently skipped. Only for unfiltered scans: a filter leaves
 * out records that are still there.
 */
export function gapsBetween<R extends { partition: number; offset: number }>(
  records: readonly R[],
  /** Where each partition's scan started (its log start for a read from the earliest). */
  starts: ReadonlyMap<number, number> = new Map(),
): Map<string, OffsetGap> {
  const gaps = new Map<string, OffsetGap>();
  const byPartition = new Map<number, number[]>();
  for (const r of records) {
    const list = byPartition.get(r.partition);
    if (list) list.push(r.offset);
    else byPartition.set(r.partition, [r.offset]);
  }
  for (const [partition, offsets] of byPartition) {
    offsets.sort((a, b) => a - b);
    const start = starts.get(partition);
    if (start !== undefined && offsets[0]! > start) {
      gaps.set(`${partition}:${offsets[0]}`, { fromOffset: start, toOffset: offsets[0]! - 1 });
    }
    for (let i = 1; i < offsets.length; i++) {
      const previous = offsets[i - 1]!;
      const offset = offsets[i]!;
      if (offset > previous + 1)
        gaps.set(`${partition}:${offset}`, { fromOffset: previous + 1, toOffset: offset - 1 });
    }
  }
  return gaps;
}

export function describeGap(gap: OffsetGap): string {
  return gap.fromOffset === gap.toOffset
    ? `Offset ${gap.fromOffset} was compacted away.`
    : `Offsets ${gap.fromOffset}–${gap.toOffset} were compacted away.`;
}
