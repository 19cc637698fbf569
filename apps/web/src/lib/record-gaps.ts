/** One line of the message browser: a record, or a run of offsets the log no longer holds. */
export type BrowserRow<R extends { offset: number }> =
  | { kind: "record"; record: R }
  | { kind: "gap"; fromOffset: number; toOffset: number };

/**
 * Interleaves records with explicit gaps. Compaction removes records but never renumbers offsets,
 * so a missing offset between two records (or between where the read started and the first
 * record) is shown, not silently skipped. `startOffset` is the offset the read asked for, clamped
 * to the log start; offsets before the log start are the retention's business, not a gap here.
 */
export function withGaps<R extends { offset: number }>(
  records: readonly R[],
  startOffset: number,
  logStartOffset: number,
): BrowserRow<R>[] {
  const rows: BrowserRow<R>[] = [];
  let expected = Math.max(startOffset, logStartOffset);
  for (const record of records) {
    if (record.offset > expected)
      rows.push({ kind: "gap", fromOffset: expected, toOffset: record.offset - 1 });
    rows.push({ kind: "record", record });
    expected = record.offset + 1;
  }
  return rows;
}

export function describeGap(gap: { fromOffset: number; toOffset: number }): string {
  return gap.fromOffset === gap.toOffset
    ? `Offset ${gap.fromOffset} was compacted away.`
    : `Offsets ${gap.fromOffset}–${gap.toOffset} were compacted away.`;
}
