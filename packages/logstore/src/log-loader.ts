import fs from "node:fs";
import path from "node:path";
import {
  LOG_START_OFFSET_CHECKPOINT,
  RECOVERY_POINT_CHECKPOINT,
  readCheckpoint,
  writeCheckpoint,
} from "./checkpoint-file";
import { fsyncDirectory } from "./fsync-directory";
import { readRemoteSegments, writeRemoteSegments } from "./remote-segments";
import { parseSegmentFileName, Segment, type SegmentLimits } from "./segment";
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

/** Suffix of a fetched-back segment's file while it is written (removed at open after a crash). */
export const RESTORING_SUFFIX = ".restoring";

/** Segment base offsets with a `.log`; index files without their log are deleted (Kafka does too). */
function listSegmentBases(dir: string): number[] {
  const names = fs.readdirSync(dir);
  const logs = new Set<number>();
  for (const name of names) {
    if (name.endsWith(RESTORING_SUFFIX)) fs.rmSync(path.join(dir, name), { force: true });
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
 * their batch headers walked. Indexes are rebuilt from what is found. Segments evicted to a
 * remote tier (remote-segments.ts) take their place in the list without files; a segment both
 * listed as evicted and present on disk (an eviction or a fetch cut short) is taken from disk.
 */
export async function loadLog(dir: string, limits: SegmentLimits, nowMs: number): Promise<LoadedLog> {
  await fs.promises.mkdir(dir, { recursive: true });
  await recoverSwapFiles(dir);
  const bases = listSegmentBases(dir);
  const startCheckpoint = readCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT) ?? 0;
  const recoveryPoint = readCheckpoint(dir, RECOVERY_POINT_CHECKPOINT) ?? 0;
  const remote = loadRemoteSegments(dir, bases, limits);
  if (bases.length === 0) {
    const start = Math.max(startCheckpoint, remote.at(-1)?.nextOffset ?? 0);
    const segment = Segment.create(dir, start, limits, nowMs);
    fsyncDirectory(dir);
    const recovery = { segmentsRecovered: 0, truncatedBytes: 0, corruptSegments: [] };
    const logStartOffset = remote.length > 0 ? Math.max(startCheckpoint, remote[0]!.baseOffset) : start;
    return { segments: [...remote, segment], logStartOffset, recovery };
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
  if (remote.length > 0) {
    segments.push(...remote);
    segments.sort((a, b) => a.baseOffset - b.baseOffset);
    assertOrdered(dir, segments);
    if (segments.at(-1)!.remote !== null) {
      segments.push(Segment.create(dir, segments.at(-1)!.nextOffset, limits, nowMs));
      fsyncDirectory(dir);
    }
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

/**
 * The evicted segments of `dir` as file-less segments, minus those whose file is on disk (the
 * file wins: an eviction is recorded before its files go, a fetch's file lands before its entry
 * goes). The list is rewritten when such entries were dropped.
 */
function loadRemoteSegments(dir: string, localBases: readonly number[], limits: SegmentLimits): Segment[] {
  const entries = readRemoteSegments(dir);
  if (entries.length === 0) return [];
  const local = new Set(localBases);
  const kept = entries.filter((entry) => !local.has(entry.baseOffset));
  if (kept.length !== entries.length) writeRemoteSegments(dir, kept);
  return kept.map((entry) => Segment.remote(dir, entry, limits));
}

/** Local and evicted segments must tile the log in order: each ends at or before the next begins. */
function assertOrdered(dir: string, segments: readonly Segment[]): void {
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1]!;
    if (segment.nextOffset > next.baseOffset || segment.baseOffset === next.baseOffset) {
      throw new Error(
        `${dir}: segment ${segment.baseOffset} (to ${segment.nextOffset}) overlaps segment ${next.baseOffset}; the evicted-segment list disagrees with the files`,
      );
    }
  }
}

/** A corrupt closed segment's unreadable tail still owns the offsets up to the next segment. */
function closeOffsetGaps(segments: Segment[]): void {
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.corruption) segment.nextOffset = Math.max(segment.nextOffset, segments[i + 1]!.baseOffset);
  }
}
