import fs from "node:fs";
import path from "node:path";
import {
  LOG_START_OFFSET_CHECKPOINT,
  RECOVERY_POINT_CHECKPOINT,
  readCheckpoint,
  writeCheckpoint,
} from "./checkpoint-file";
import { fsyncDirectory, parseSegmentFileName, Segment, type SegmentLimits } from "./segment";
import { recoverSwapFiles } from "./segment-swap";
import { resolveTombstoneCounts, writeTombstoneCounts } from "./tombstone-counts";

export interface RecoveryReport {
  /** Segments whose batches were CRC-checked because they lie at or after the recovery point. */
  segmentsRecovered: number;
  /** Bytes cut from a torn or garbage tail of the active segment. */
  truncatedBytes: number;
  /** Closed segments holding bytes that are not valid batches (never served). */
  corruptSegments: number[];
}

export interface LoadedLog {
  segments: Segment[];
  logStartOffset: number;
  recovery: RecoveryReport;
}

/** Segment base offsets with a `.log`; index files without their log are deleted (Kafka does too). */
function listSegmentBases(dir: string): number[] {
  const names = fs.readdirSync(dir);
  const logs = new Set<number>();
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    if (parsed?.kind === "log") logs.add(parsed.baseOffset);
  }
  for (const name of names) {
    const parsed = parseSegmentFileName(name);
    if (parsed && parsed.kind !== "log" && !logs.has(parsed.baseOffset)) fs.unlinkSync(path.join(dir, name));
  }
  return [...logs].sort((a, b) => a - b);
}

/**
 * Opens a partition directory after a clean close or a crash (Kafka's LogLoader): settles any
 * interrupted cleaner swap, then loads every segment. Segments from the one holding the recovery
 * point onward are CRC-checked and the active one loses a torn tail; earlier ones only have
 * their batch headers walked. Indexes are rebuilt from what is found.
 */
export async function loadLog(dir: string, limits: SegmentLimits, nowMs: number): Promise<LoadedLog> {
  await fs.promises.mkdir(dir, { recursive: true });
  await recoverSwapFiles(dir);
  const bases = listSegmentBases(dir);
  const startCheckpoint = readCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT) ?? 0;
  const recoveryPoint = readCheckpoint(dir, RECOVERY_POINT_CHECKPOINT) ?? 0;
  if (bases.length === 0) {
    const segment = Segment.create(dir, startCheckpoint, limits, nowMs);
    fsyncDirectory(dir);
    const recovery = { segmentsRecovered: 0, truncatedBytes: 0, corruptSegments: [] };
    return { segments: [segment], logStartOffset: startCheckpoint, recovery };
  }
  const firstUnflushed = Math.max(
    0,
    bases.findLastIndex((base) => base <= recoveryPoint),
  );
  const segments: Segment[] = [];
  const recovery: RecoveryReport = { segmentsRecovered: 0, truncatedBytes: 0, corruptSegments: [] };
  for (let i = 0; i < bases.length; i++) {
    const isLast = i === bases.length - 1;
    const verifyCrc = i >= firstUnflushed;
    const loaded = Segment.load(dir, bases[i]!, limits, {
      nowMs,
      verifyCrc,
      truncateTail: isLast,
      sealed: !isLast,
    });
    if (verifyCrc) recovery.segmentsRecovered++;
    recovery.truncatedBytes += loaded.truncatedBytes;
    if (loaded.segment.corruption) recovery.corruptSegments.push(loaded.segment.baseOffset);
    segments.push(loaded.segment);
  }
  closeOffsetGaps(segments);
  // Segments walked by headers only take their tombstone counts from the checkpoint (scanned
  // when it has no matching entry, which is then written for the next open).
  if (resolveTombstoneCounts(dir, segments)) writeTombstoneCounts(dir, segments.slice(0, -1));
  const active = segments.at(-1)!;
  // After a process crash the recovered bytes may sit only in the page cache: make them durable
  // before the recovery point claims they were checked and flushed.
  await active.flushAll();
  writeCheckpoint(dir, RECOVERY_POINT_CHECKPOINT, active.nextOffset);
  const logStartOffset = Math.min(Math.max(startCheckpoint, segments[0]!.baseOffset), active.nextOffset);
  return { segments, logStartOffset, recovery };
}

/** A corrupt closed segment's unreadable tail still owns the offsets up to the next segment. */
function closeOffsetGaps(segments: Segment[]): void {
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.corruption) segment.nextOffset = Math.max(segment.nextOffset, segments[i + 1]!.baseOffset);
  }
}
