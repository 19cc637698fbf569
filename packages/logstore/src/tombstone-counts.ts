import { readTextFile, writeFileAtomically } from "./checkpoint-file";
import type { Segment } from "./segment";

// Per-segment tombstone counts (records with a key and a null value) of closed segments, so
// that open() needs no full-log scan to report them: the batch-header walk it does anyway gives
// offsets, sizes and record counts, not values. Each entry names the segment it was counted on
// (base, next offset, record count, size); a segment that does not match its entry (a legacy
// directory, a cleaner swap or roll whose checkpoint a crash cut off) is scanned once instead.
// Matching is sound because a segment's records only ever disappear (the cleaner removes,
// never adds): the same base, next offset and record count mean the same records.

export const TOMBSTONE_COUNT_CHECKPOINT = "tombstone-count-checkpoint";
const VERSION = "0";

interface Entry {
  nextOffset: number;
  records: number;
  sizeBytes: number;
  tombstones: number;
}

/** Entries by base offset; empty when the file is missing or not understood. */
export function readTombstoneCounts(dir: string): Map<number, Entry> {
  const entries = new Map<number, Entry>();
  const text = readTextFile(dir, TOMBSTONE_COUNT_CHECKPOINT);
  if (text === null) return entries;
  const [version, countText, ...lines] = text.split("\n");
  const count = Number(countText);
  if (version !== VERSION || !Number.isSafeInteger(count) || lines.length < count) return entries;
  for (const line of lines.slice(0, count)) {
    const fields = line.split(" ").map(Number);
    if (fields.length !== 5 || !fields.every((n) => Number.isSafeInteger(n) && n >= 0)) return new Map();
    const [base, nextOffset, records, sizeBytes, tombstones] = fields as [
      number,
      number,
      number,
      number,
      number,
    ];
    entries.set(base, { nextOffset, records, sizeBytes, tombstones });
  }
  return entries;
}

/** Replaces the checkpoint with the counts of `segments` (atomically). */
export function writeTombstoneCounts(dir: string, segments: readonly Segment[]): void {
  const lines = segments.map(
    (s) => `${s.baseOffset} ${s.nextOffset} ${s.recordCount} ${s.sizeBytes} ${s.tombstoneCount}`,
  );
  writeFileAtomically(dir, TOMBSTONE_COUNT_CHECKPOINT, `${VERSION}\n${lines.length}\n${lines.join("\n")}\n`);
}

/**
 * Gives every segment whose load did not count its tombstones (`tombstoneCount < 0`) the
 * checkpointed count when its entry matches, else counts it by a scan. Returns whether any
 * segment was scanned (the caller then rewrites the checkpoint).
 */
export function resolveTombstoneCounts(dir: string, segments: readonly Segment[]): boolean {
  const entries = readTombstoneCounts(dir);
  let scanned = false;
  for (const segment of segments) {
    if (segment.tombstoneCount >= 0) continue;
    const entry = entries.get(segment.baseOffset);
    if (
      entry !== undefined &&
      entry.nextOffset === segment.nextOffset &&
      entry.records === segment.recordCount &&
      entry.sizeBytes === segment.sizeBytes
    ) {
      segment.tombstoneCount = entry.tombstones;
    } else {
      segment.scanTombstones();
      scanned = true;
    }
  }
  return scanned;
}
