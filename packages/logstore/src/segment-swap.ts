import { open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { BATCH_HEADER_BYTES, batchField } from "@lastword/record-batch";
import { fsyncDirectory } from "./fsync-directory";

// Crash-safe replacement of a group of segments by one cleaned segment (Kafka's
// LocalLog.replaceSegments and LogLoader's swap recovery). A group's new files are written as
// `<base>.<ext>.cleaned`, fsynced, then renamed to `.swap`; only once every `.swap` exists does the
// replacement start, so recovery can decide from names alone: any `.cleaned` left means the swap
// never committed (roll back), a `.swap` with no `.cleaned` means it did (roll forward).
//
// Beyond Kafka: each group also creates an empty marker `<base>.swaprange-<next>`, named after the
// offset following the old segments it replaces. Kafka's recovery bounds the old segments to
// delete by the new segment's own next offset; when the group's trailing segment was emptied by
// cleaning, that bound falls short and an old segment of superseded records could survive a crash
// and resurrect a deleted key. Carrying the bound in a file name makes it durable with the same
// directory fsync that commits the group, with no extra file fsync.

export const CLEANED_SUFFIX = ".cleaned";
export const SWAP_SUFFIX = ".swap";
export const DELETED_SUFFIX = ".deleted";
const RANGE_PREFIX = "swaprange-";
const SEGMENT_FILE = /^(\d{20})\.([a-z]+(?:-\d{20})?)(\.cleaned|\.swap|\.deleted)?$/;

interface SegmentFile {
  name: string;
  baseOffset: number;
  ext: string;
  suffix: "" | typeof CLEANED_SUFFIX | typeof SWAP_SUFFIX | typeof DELETED_SUFFIX;
}

/** `00000000000000000042` for 42: Kafka's segment file stem. */
export function segmentStem(baseOffset: number): string {
  return String(baseOffset).padStart(20, "0");
}

function parseSegmentFile(name: string): SegmentFile | null {
  const m = SEGMENT_FILE.exec(name);
  if (!m) return null;
  return { name, baseOffset: Number(m[1]), ext: m[2]!, suffix: (m[3] ?? "") as SegmentFile["suffix"] };
}

async function listSegmentFiles(dir: string): Promise<SegmentFile[]> {
  const names = await readdir(dir);
  return names.map(parseSegmentFile).filter((f): f is SegmentFile => f !== null);
}

async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
}

/** Offset after the last complete batch of a log file, or `baseOffset` when it has none. */
async function readNextOffset(path: string, baseOffset: number): Promise<number> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(BATCH_HEADER_BYTES);
    let next = baseOffset;
    for (let pos = 0; pos + BATCH_HEADER_BYTES <= size; ) {
      await handle.read(header, 0, BATCH_HEADER_BYTES, pos);
      const end = pos + batchField.sizeBytes(header, 0);
      if (end > size || end < pos + BATCH_HEADER_BYTES) break;
      next = batchField.lastOffset(header, 0) + 1;
      pos = end;
    }
    return next;
  } finally {
    await handle.close();
  }
}

/** Name of the marker recording that the group at `baseOffset` replaces offsets up to `oldNextOffset`. */
export function swapRangeFileName(baseOffset: number, oldNextOffset: number, suffix: string): string {
  return `${segmentStem(baseOffset)}.${RANGE_PREFIX}${segmentStem(oldNextOffset)}${suffix}`;
}

function isRangeMarker(file: SegmentFile): boolean {
  return file.ext.startsWith(RANGE_PREFIX);
}

/** The old range's next offset recorded for the swap at `baseOffset`, or -1 without a marker. */
function swapRangeEnd(files: readonly SegmentFile[], baseOffset: number): number {
  const marker = files.find(
    (f) => f.baseOffset === baseOffset && f.suffix === SWAP_SUFFIX && isRangeMarker(f),
  );
  return marker ? Number(marker.ext.slice(RANGE_PREFIX.length)) : -1;
}

export interface SwapRecoveryReport {
  rolledBack: number[];
  rolledForward: number[];
}

/**
 * Brings a partition directory back to whole segments after a crash (Kafka's LogLoader rules):
 * drops `.deleted` files; rolls back every group at or above the lowest `.cleaned` file; rolls the
 * remaining `.swap` groups forward, replacing the old segments in their range. Call before listing
 * segments on open.
 */
export async function recoverSwapFiles(dir: string): Promise<SwapRecoveryReport> {
  let files = await listSegmentFiles(dir);
  for (const f of files) {
    const stray = f.suffix === DELETED_SUFFIX || (f.suffix === "" && isRangeMarker(f));
    if (stray) await unlinkIfPresent(join(dir, f.name));
  }
  const cleaned = files.filter((f) => f.suffix === CLEANED_SUFFIX);
  const minCleaned = Math.min(...cleaned.map((f) => f.baseOffset));
  const rolledBack = new Set<number>();
  for (const f of files) {
    const abandoned = f.suffix === CLEANED_SUFFIX || (f.suffix === SWAP_SUFFIX && f.baseOffset >= minCleaned);
    if (!abandoned) continue;
    rolledBack.add(f.baseOffset);
    await unlinkIfPresent(join(dir, f.name));
  }
  files = await listSegmentFiles(dir);
  const rolledForward = await rollForward(dir, files);
  if (rolledBack.size > 0 || rolledForward.length > 0 || files.some((f) => f.suffix !== ""))
    fsyncDirectory(dir);
  return { rolledBack: [...rolledBack].sort((a, b) => a - b), rolledForward };
}

async function rollForward(dir: string, files: SegmentFile[]): Promise<number[]> {
  const swaps = files.filter((f) => f.suffix === SWAP_SUFFIX);
  const committed = new Set(swaps.filter((f) => f.ext === "log").map((f) => f.baseOffset));
  // Index swaps and markers whose .log already took its final name are stale (indexes are rebuilt).
  for (const f of swaps) if (!committed.has(f.baseOffset)) await unlinkIfPresent(join(dir, f.name));
  if (committed.size === 0) return [];
  let minBase = Number.POSITIVE_INFINITY;
  let maxNext = Number.NEGATIVE_INFINITY;
  for (const base of committed) {
    const own = await readNextOffset(join(dir, `${segmentStem(base)}.log${SWAP_SUFFIX}`), base);
    minBase = Math.min(minBase, base);
    maxNext = Math.max(maxNext, own, swapRangeEnd(files, base));
  }
  for (const f of files) {
    const replaced =
      f.suffix === "" && !isRangeMarker(f) && f.baseOffset >= minBase && f.baseOffset < maxNext;
    if (replaced) await unlinkIfPresent(join(dir, f.name));
  }
  const indexSwaps = swaps.filter((f) => committed.has(f.baseOffset) && f.ext !== "log" && !isRangeMarker(f));
  for (const f of indexSwaps) await rename(join(dir, f.name), join(dir, withSuffix(f, "")));
  // The .log goes last: until it has its final name, a crash repeats this roll-forward.
  for (const base of committed) {
    await rename(join(dir, `${segmentStem(base)}.log${SWAP_SUFFIX}`), join(dir, `${segmentStem(base)}.log`));
  }
  for (const f of swaps)
    if (committed.has(f.baseOffset) && isRangeMarker(f)) await unlinkIfPresent(join(dir, f.name));
  return [...committed].sort((a, b) => a - b);
}

function withSuffix(file: SegmentFile, suffix: string): string {
  return `${segmentStem(file.baseOffset)}.${file.ext}${suffix}`;
}
