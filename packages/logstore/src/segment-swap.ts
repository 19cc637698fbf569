import { open, readdir, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Crash-safe replacement of a group of segments by one cleaned segment (Kafka's
// LocalLog.replaceSegments and LogLoader's swap recovery). A group's new files are written as
// `<base>.<ext>.cleaned`, fsynced, then renamed to `.swap`; only once every `.swap` exists does the
// replacement start, so recovery can decide from names alone: any `.cleaned` left means the swap
// never committed (roll back), a `.swap` with no `.cleaned` means it did (roll forward).
//
// Beyond Kafka: each group also writes `<base>.swaprange.cleaned`, holding the next offset of the
// old segments it replaces. Kafka's recovery bounds the old segments to delete by the new
// segment's own next offset; when the group's trailing segment was emptied entirely by cleaning,
// that bound falls short and an old segment of superseded records could survive a crash and
// resurrect a deleted key. The recorded bound makes the roll-forward exact.

export const CLEANED_SUFFIX = ".cleaned";
export const SWAP_SUFFIX = ".swap";
export const DELETED_SUFFIX = ".deleted";
const RANGE_EXT = "swaprange";
const SEGMENT_FILE = /^(\d{20})\.([a-z]+)(\.cleaned|\.swap|\.deleted)?$/;
const BATCH_HEADER_BYTES = 61;

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

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ENOENT") throw err;
  });
}

/** What one cleaned group replaces: the old segments' bases and the offset after their last one. */
export interface SwapGroup {
  baseOffset: number;
  oldBaseOffsets: readonly number[];
  oldNextOffset: number;
}

/** Removes whatever an abandoned or crashed attempt left at `baseOffset` with the `.cleaned` suffix. */
export async function discardCleaned(dir: string, baseOffset: number): Promise<void> {
  const stem = segmentStem(baseOffset);
  for (const file of await listSegmentFiles(dir)) {
    if (file.suffix === CLEANED_SUFFIX && file.name.startsWith(stem))
      await unlinkIfPresent(join(dir, file.name));
  }
}

/** Records the group's old range beside its `.cleaned` files (fsynced before promotion). */
export async function writeSwapRange(dir: string, group: SwapGroup): Promise<void> {
  const path = join(dir, `${segmentStem(group.baseOffset)}.${RANGE_EXT}${CLEANED_SUFFIX}`);
  await writeFile(path, `${group.oldNextOffset}\n`, { flush: true });
}

/**
 * Commits the cleaned groups: renames their `.cleaned` files to `.swap` in descending base order
 * (so a crash midway leaves a `.cleaned` below every `.swap`, which recovery rolls back), then
 * makes the renames durable. From here on recovery rolls the swap forward.
 */
export async function promoteCleaned(dir: string, baseOffsets: readonly number[]): Promise<void> {
  const files = (await listSegmentFiles(dir)).filter((f) => f.suffix === CLEANED_SUFFIX);
  const bases = [...baseOffsets].sort((a, b) => b - a);
  for (const base of bases) {
    // The .log goes last within a group: a group is committed only when its .log is a .swap.
    const group = files.filter((f) => f.baseOffset === base).sort((a, b) => logLast(a.ext, b.ext));
    for (const file of group) await rename(join(dir, file.name), join(dir, withSuffix(file, SWAP_SUFFIX)));
  }
  await fsyncDir(dir);
}

function logLast(a: string, b: string): number {
  return (a === "log" ? 1 : 0) - (b === "log" ? 1 : 0);
}

function withSuffix(file: SegmentFile, suffix: string): string {
  return `${segmentStem(file.baseOffset)}.${file.ext}${suffix}`;
}

/**
 * Finishes a committed swap: old segment files become `.deleted`, the `.swap` files take their
 * final names (the `.log` last), the directory is fsynced, then the `.deleted` files go. Readers
 * holding open descriptors on the old files keep reading them until they close.
 */
export async function completeSwap(dir: string, group: SwapGroup): Promise<void> {
  const files = await listSegmentFiles(dir);
  const old = new Set(group.oldBaseOffsets);
  const doomed = files.filter((f) => f.suffix === "" && old.has(f.baseOffset));
  for (const file of doomed) await rename(join(dir, file.name), join(dir, withSuffix(file, DELETED_SUFFIX)));
  await finishSwapFiles(dir, files, group.baseOffset);
  await fsyncDir(dir);
  for (const file of doomed) await unlinkIfPresent(join(dir, withSuffix(file, DELETED_SUFFIX)));
}

async function finishSwapFiles(dir: string, files: SegmentFile[], baseOffset: number): Promise<void> {
  const swaps = files
    .filter((f) => f.suffix === SWAP_SUFFIX && f.baseOffset === baseOffset)
    .sort((a, b) => logLast(a.ext, b.ext));
  for (const file of swaps) {
    const from = join(dir, file.name);
    if (file.ext === RANGE_EXT) continue;
    await rename(from, join(dir, withSuffix(file, "")));
  }
  await unlinkIfPresent(join(dir, `${segmentStem(baseOffset)}.${RANGE_EXT}${SWAP_SUFFIX}`));
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
      const end = pos + 12 + header.readInt32BE(8);
      if (end > size || end < pos + BATCH_HEADER_BYTES) break;
      next = Number(header.readBigInt64BE(0)) + header.readInt32BE(23) + 1;
      pos = end;
    }
    return next;
  } finally {
    await handle.close();
  }
}

async function readSwapRange(dir: string, baseOffset: number): Promise<number> {
  const path = join(dir, `${segmentStem(baseOffset)}.${RANGE_EXT}${SWAP_SUFFIX}`);
  const text = await open(path, "r").then(
    async (h) => {
      try {
        return await h.readFile("utf8");
      } finally {
        await h.close();
      }
    },
    () => "",
  );
  const next = Number.parseInt(text, 10);
  return Number.isSafeInteger(next) ? next : -1;
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
  for (const f of files) if (f.suffix === DELETED_SUFFIX) await unlinkIfPresent(join(dir, f.name));
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
    await fsyncDir(dir);
  return { rolledBack: [...rolledBack].sort((a, b) => a - b), rolledForward };
}

async function rollForward(dir: string, files: SegmentFile[]): Promise<number[]> {
  const swaps = files.filter((f) => f.suffix === SWAP_SUFFIX);
  const committed = new Set(swaps.filter((f) => f.ext === "log").map((f) => f.baseOffset));
  // Index swaps whose .log already took its final name are stale; indexes are rebuilt on open.
  for (const f of swaps) if (!committed.has(f.baseOffset)) await unlinkIfPresent(join(dir, f.name));
  if (committed.size === 0) return [];
  let minBase = Number.POSITIVE_INFINITY;
  let maxNext = Number.NEGATIVE_INFINITY;
  for (const base of committed) {
    const own = await readNextOffset(join(dir, `${segmentStem(base)}.log${SWAP_SUFFIX}`), base);
    minBase = Math.min(minBase, base);
    maxNext = Math.max(maxNext, own, await readSwapRange(dir, base));
  }
  for (const f of files) {
    const replaced =
      f.suffix === "" && f.ext !== RANGE_EXT && f.baseOffset >= minBase && f.baseOffset < maxNext;
    if (replaced) await unlinkIfPresent(join(dir, f.name));
  }
  for (const base of committed) await finishSwapFiles(dir, files, base);
  return [...committed].sort((a, b) => a - b);
}
