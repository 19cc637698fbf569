import { readTextFile, writeFileAtomically } from "./checkpoint-file";

/**
 * The bookkeeping of a closed segment whose bytes were evicted to a remote tier: everything the
 * log reads of a segment without its files (offsets, size, counts, timestamps), and `ref`, the
 * caller's opaque name for the bytes (what `RemoteSegmentSource.fetch` is given back).
 */
export interface RemoteSegmentEntry {
  baseOffset: number;
  nextOffset: number;
  sizeBytes: number;
  records: number;
  tombstones: number;
  firstBatchTimestamp: number;
  maxTimestamp: number;
  offsetOfMaxTimestamp: number;
  /** Retention's largest timestamp: the max record timestamp, or the file's mtime when none. */
  largestTimestampMs: number;
  ref: string;
}

/** Where evicted segments' bytes are fetched back from (the worker's object store). */
export interface RemoteSegmentSource {
  /**
   * The segment's stored bytes, exactly as they were on disk when it was evicted: whole, or as
   * chunks read as they are consumed (written to the file one by one, so a segment of any size is
   * fetched back in bounded memory). A stream that fails ends the fetch; nothing is installed.
   */
  fetch(ref: string, baseOffset: number): Promise<Uint8Array | AsyncIterable<Uint8Array>>;
}

/** The list of a log's evicted segments, beside its other checkpoints. */
export const REMOTE_SEGMENTS_FILE = "remote-segments.json";
const VERSION = 1;

/**
 * Each entry field copied to and from a segment's own bookkeeping, and the segment field it is:
 * the one list `Segment.remote`, `Segment.remoteEntry` and the file's check below go by. The
 * segment side is checked where `Segment` copies the fields (segment.ts imports this module, not
 * the other way round).
 */
export const SEGMENT_FIELD_OF_ENTRY = {
  nextOffset: "nextOffset",
  sizeBytes: "sizeBytes",
  records: "recordCount",
  tombstones: "tombstoneCount",
  firstBatchTimestamp: "firstBatchTimestamp",
  maxTimestamp: "maxTimestamp",
  offsetOfMaxTimestamp: "offsetOfMaxTimestamp",
} as const satisfies Partial<Record<keyof RemoteSegmentEntry, string>>;

const FIELDS = ["baseOffset", ...Object.keys(SEGMENT_FIELD_OF_ENTRY), "largestTimestampMs"];

/**
 * The evicted segments recorded in `dir`, by base offset. A missing file is an empty list; an
 * unreadable one throws: the log cannot tell which offsets it holds without it.
 */
export function readRemoteSegments(dir: string): RemoteSegmentEntry[] {
  const text = readTextFile(dir, REMOTE_SEGMENTS_FILE);
  if (text === null) return [];
  const parsed = JSON.parse(text) as { version?: unknown; segments?: unknown };
  if (parsed.version !== VERSION || !Array.isArray(parsed.segments)) {
    throw new Error(`${dir}/${REMOTE_SEGMENTS_FILE} is not a version ${VERSION} list of remote segments`);
  }
  return parsed.segments.map((raw: Record<string, unknown>) => {
    const entry = { ref: raw.ref } as Record<string, unknown>;
    for (const field of FIELDS) {
      if (!Number.isSafeInteger(raw[field])) {
        throw new Error(`${dir}/${REMOTE_SEGMENTS_FILE}: ${field} of a remote segment is not an integer`);
      }
      entry[field] = raw[field];
    }
    if (typeof entry.ref !== "string")
      throw new Error(`${dir}/${REMOTE_SEGMENTS_FILE}: a ref is not a string`);
    return entry as unknown as RemoteSegmentEntry;
  });
}

/** Replaces the list atomically (temp file, fsync, rename, fsync of the directory). */
export function writeRemoteSegments(dir: string, entries: readonly RemoteSegmentEntry[]): void {
  const segments = [...entries].sort((a, b) => a.baseOffset - b.baseOffset);
  writeFileAtomically(dir, REMOTE_SEGMENTS_FILE, `${JSON.stringify({ version: VERSION, segments })}\n`);
}
