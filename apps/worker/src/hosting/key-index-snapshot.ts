import { createHash } from "node:crypto";
import { endianness } from "node:os";
import type { KeyIndexEntries } from "./key-index";

// A partition's key index as bytes kept beside its segments in object storage, so a new owner
// starts from it and reads only what follows instead of every segment the partition ever evicted.
//
// What it reflects is stated with it: the log up to `coveredEnd` (exclusive), as it stood in the
// segments listed — each closed segment's offsets, size, record and tombstone counts, and the
// records of the segment that was active. A log's records only ever disappear (the cleaner, an
// erasure's rewrite, retention), never change in place, so the same counts mean the same records
// (the rule tombstone-counts.ts in the log store relies on too). A log that no longer matches —
// a pass or a rewrite since, or offsets the snapshot has that the log never committed — is not
// served from it: the index is rebuilt by a scan instead.
//
// Layout: "LWKI", u32 version, u32 header length, the header (JSON), u32 entry count, then the
// entries column by column (hash high halves, low halves, offsets as f64, tombstone flags), and
// a SHA-256 of everything before it. Columns are the host's typed-array bytes, little-endian.

const MAGIC = "LWKI";
/** Bumped whenever the layout or the key hash (key-index.ts) changes: an older one is ignored. */
const VERSION = 1;
const DIGEST_BYTES = 32;

/** A closed segment as the snapshot saw it: [baseOffset, lastOffset, sizeBytes, records, tombstones]. */
export type SegmentPrint = [number, number, number, number, number];

export interface KeyIndexSnapshot {
  /** The index reflects every record below this offset (the log end when it was taken). */
  coveredEnd: number;
  /** The closed segments then, in offset order. */
  closed: SegmentPrint[];
  /** The segment then active: its base and how many records it held (all below `coveredEnd`). */
  active: { baseOffset: number; records: number };
  entries: KeyIndexEntries;
}

/** What the snapshot is compared with: a log's segment list (as `segments()` describes it). */
export interface SegmentShape {
  baseOffset: number;
  lastOffset: number;
  sizeBytes: number;
  records: number;
  tombstones: number;
  active: boolean;
}

export class KeyIndexSnapshotError extends Error {}

function assertLittleEndian(): void {
  if (endianness() !== "LE") throw new KeyIndexSnapshotError("key index snapshots are little-endian only");
}

/** The snapshot of `entries`, taken when the log ended at `coveredEnd` with these segments. */
export function encodeKeyIndexSnapshot(
  entries: KeyIndexEntries,
  coveredEnd: number,
  segments: readonly SegmentShape[],
): Buffer {
  assertLittleEndian();
  const active = segments.at(-1);
  if (!active?.active) throw new KeyIndexSnapshotError("a segment list ends with its active segment");
  const header = Buffer.from(
    JSON.stringify({
      coveredEnd,
      closed: segments
        .slice(0, -1)
        .map((s) => [s.baseOffset, s.lastOffset, s.sizeBytes, s.records, s.tombstones]),
      active: { baseOffset: active.baseOffset, records: active.records },
    }),
  );
  const head = Buffer.alloc(16);
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(VERSION, 4);
  head.writeUInt32LE(header.length, 8);
  const count = Buffer.alloc(4);
  count.writeUInt32LE(entries.hi.length, 0);
  const parts = [
    head.subarray(0, 12),
    header,
    count,
    ...[entries.hi, entries.lo, entries.offsets, entries.tombstones].map((column) =>
      Buffer.from(column.buffer, column.byteOffset, column.byteLength),
    ),
  ];
  const digest = createHash("sha256");
  for (const part of parts) digest.update(part);
  return Buffer.concat([...parts, digest.digest()]);
}

/** The snapshot in `bytes`; KeyIndexSnapshotError when they are not a whole, intact one of this version. */
export function decodeKeyIndexSnapshot(bytes: Buffer): KeyIndexSnapshot {
  assertLittleEndian();
  if (bytes.length < 16 + DIGEST_BYTES || bytes.toString("latin1", 0, 4) !== MAGIC)
    throw new KeyIndexSnapshotError("not a key index snapshot");
  const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
  if (!createHash("sha256").update(body).digest().equals(bytes.subarray(body.length)))
    throw new KeyIndexSnapshotError("checksum mismatch");
  const version = body.readUInt32LE(4);
  if (version !== VERSION) throw new KeyIndexSnapshotError(`version ${version}, not ${VERSION}`);
  const headerEnd = 12 + body.readUInt32LE(8);
  const header = JSON.parse(body.toString("utf8", 12, headerEnd)) as Omit<KeyIndexSnapshot, "entries">;
  const n = body.readUInt32LE(headerEnd);
  let at = headerEnd + 4;
  if (body.length !== at + n * 17) throw new KeyIndexSnapshotError(`${n} entries do not fill the body`);
  // Copied out: typed arrays need aligned offsets, and the columns sit wherever the header ended.
  const column = <T>(width: number, make: (buffer: ArrayBuffer) => T): T => {
    const copy = new Uint8Array(n * width);
    copy.set(body.subarray(at, at + n * width));
    at += n * width;
    return make(copy.buffer);
  };
  const entries: KeyIndexEntries = {
    hi: column(4, (b) => new Uint32Array(b)),
    lo: column(4, (b) => new Uint32Array(b)),
    offsets: column(8, (b) => new Float64Array(b)),
    tombstones: column(1, (b) => new Uint8Array(b)),
  };
  return { ...header, entries };
}

/**
 * Where a log's index resumes from the snapshot: its entries at or above the log start, then a scan
 * from `from` to the end — checking, when `check` is set, that the records the scan meets below
 * `check.below` number `check.records` (the snapshot's active segment lost none since). A reason
 * instead when the log is not the one the snapshot saw.
 */
export type CatchUp = { from: number; check: { below: number; records: number } | null } | { reason: string };

export function catchUpFrom(
  snapshot: Omit<KeyIndexSnapshot, "entries">,
  log: { segments: readonly SegmentShape[]; logStartOffset: number; logEndOffset: number },
): CatchUp {
  const { coveredEnd, closed, active } = snapshot;
  if (coveredEnd > log.logEndOffset)
    return { reason: `it covers offsets to ${coveredEnd}, past the log end ${log.logEndOffset}` };
  // Closed segments then below the active one: the log's must be those, less any retention removed.
  const below = log.segments.filter((s) => s.baseOffset < active.baseOffset);
  const seen = new Map(closed.map((print) => [print[0], print]));
  for (const segment of below) {
    const print = seen.get(segment.baseOffset);
    const now = [segment.lastOffset, segment.sizeBytes, segment.records, segment.tombstones];
    if (segment.active || !print || now.some((value, i) => value !== print[i + 1]))
      return { reason: `segment ${segment.baseOffset} is not the one it saw (a pass or a rewrite since)` };
  }
  const first = below[0]?.baseOffset ?? active.baseOffset;
  if (closed.filter((print) => print[0] >= first).length !== below.length)
    return { reason: "segments it saw are missing from the log" };
  if (active.baseOffset >= log.logStartOffset)
    return { from: active.baseOffset, check: { below: coveredEnd, records: active.records } };
  // The log start moved past the segment's base: its records above the start cannot be counted.
  if (coveredEnd <= log.logStartOffset) return { from: log.logStartOffset, check: null };
  return { reason: `the log start ${log.logStartOffset} moved into its active segment` };
}
