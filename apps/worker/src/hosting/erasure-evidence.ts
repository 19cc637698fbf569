import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ObjectStoreEvidence, ScanEvidence, SegmentEvidence } from "@lastword/erasure";
import { BATCH_HEADER_BYTES, batchField, batchHeaderDefect, decodeBatch } from "@lastword/record-batch";
import type { HostedLog } from "./hosted-log";

/** The object-storage side of a scan (durability/object-evidence.ts), when the worker has a store. */
export interface ObjectScan {
  /** Offsets of records of the key found in the partition's objects, and what was looked at. */
  matches: number[];
  evidence: ObjectStoreEvidence;
  bytesScanned: number;
  /** Why the bucket cannot be proven clean yet (an object not yet deleted, a copy on a live worker). */
  blockedBy: string | null;
}

export interface ScanInput {
  log: HostedLog;
  dir: string;
  key: Buffer;
  /** Records of the key are looked for below this offset (the tombstone's), or everywhere when null. */
  belowOffset: number | null;
  now: Date;
  /** With an object store: scans the partition's objects (its cache on disk is scanned here). */
  objects?: (below: number) => Promise<ObjectScan>;
}

/**
 * Scans every segment file of the partition on this disk — local segments and files retired by a
 * pass or retention but not yet unlinked — for records of `key` below `belowOffset`, and
 * fingerprints each live file as it is on disk, so the proof names the exact bytes it looked at.
 * Evicted segments have no file here: with an object store their objects are scanned instead,
 * together with every other object of the partition, and the result is `absent` only when the
 * bucket is proven clean too. A segment swapped away mid-scan throws (ENOENT); the caller retries
 * on the next tick.
 */
export interface ScanOutcome {
  evidence: ScanEvidence;
  /**
   * Why an absence cannot be proven yet although this disk's live copy holds no record of the key
   * (files a pass retired still on disk, objects not yet replaced or deleted, a copy on another
   * worker): a rescan later settles it; another pass would not. Null when proven, or when a pass
   * is what is needed.
   */
  blockedBy: string | null;
  /** Part of what blocks it: files a pass or retention retired, not yet unlinked. */
  retiredFiles: boolean;
}

export async function scanForKey(input: ScanInput): Promise<ScanOutcome> {
  const { log, dir, key, belowOffset, now } = input;
  const below = belowOffset ?? Number.POSITIVE_INFINITY;
  const matches: number[] = [];
  const segments: SegmentEvidence[] = [];
  let bytesScanned = 0;
  for (const segment of await log.segments()) {
    if (segment.remote) continue;
    const bytes = (await readFile(join(dir, segmentFileName(segment.baseOffset)))).subarray(
      0,
      segment.sizeBytes,
    );
    bytesScanned += bytes.length;
    scanBytes(bytes, key, below, matches);
    segments.push({
      baseOffset: segment.baseOffset,
      lastOffset: segment.lastOffset,
      sizeBytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  // Files a swap or retention retired stay until file.delete.delay.ms has passed: still on disk.
  const retired: number[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".log.deleted")) continue;
    const bytes = await readFile(join(dir, name)).catch(() => Buffer.alloc(0));
    bytesScanned += bytes.length;
    scanBytes(bytes, key, below, retired);
  }
  const objects = input.objects ? await input.objects(below) : null;
  // A match in an object whose segment is evicted here needs a pass (it is fetched back and cleaned);
  // one whose segment is local and clean here only waits for the cleaned segment's upload.
  const evicted = (await log.segments()).filter((segment) => segment.remote);
  const inEvicted = (offset: number) =>
    evicted.some((segment) => segment.baseOffset <= offset && offset <= segment.lastOffset);
  const stale = objects?.matches.filter((offset) => !inEvicted(offset)) ?? [];
  // The subject's records at or past the last stable offset belong to (or follow) an open
  // transaction: no pass reaches them before it ends, so the proof waits for that, and says so.
  // (An aborted transaction's records are ordinary matches: the next pass removes them whatever
  // their key.)
  const stable = log.lastStableOffset;
  const unstable = matches.filter((offset) => offset >= stable);
  const needsPass = matches.length > unstable.length || (objects?.matches.length ?? 0) > stale.length;
  if (objects) {
    matches.push(...objects.matches);
    bytesScanned += objects.bytesScanned;
  }
  const blockedBy = needsPass
    ? null
    : unstable.length > 0
      ? `an open transaction holds the partition's records from offset ${stable} on, among them the subject's at offsets ${unstable.join(", ")}: they are removed once it commits or aborts`
      : retired.length > 0
        ? `retired segment files still on disk hold offsets ${retired.join(", ")} (removed after file.delete.delay.ms)`
        : stale.length > 0
          ? `the rewritten segments are uploaded to object storage, replacing the objects that hold offsets ${stale.join(", ")}`
          : (objects?.blockedBy ?? null);
  const present = needsPass || blockedBy !== null;
  const evidence: ScanEvidence = {
    scannedAt: now.toISOString(),
    partitionLogStart: log.logStartOffset,
    partitionLogEnd: log.logEndOffset,
    belowOffset,
    matches: [...new Set(matches)].sort((a, b) => a - b),
    result: present ? "present" : "absent",
    segments,
    bytesScanned,
    ...(objects && { objects: objects.evidence }),
  };
  return { evidence, blockedBy, retiredFiles: retired.length > 0 };
}

/** Pushes the offsets below `below` of the records of `key` in `bytes` (stored batches, any codec). */
export function scanBytes(bytes: Buffer, key: Buffer, below: number, matches: number[]): void {
  for (let pos = 0; pos + BATCH_HEADER_BYTES <= bytes.length; ) {
    if (batchHeaderDefect(bytes, pos) !== null) return;
    const size = batchField.sizeBytes(bytes, pos);
    if (pos + size > bytes.length || batchField.baseOffset(bytes, pos) >= below) return;
    for (const record of decodeBatch(bytes, pos).records) {
      if (record.offset < below && record.key !== null && record.key.equals(key)) matches.push(record.offset);
    }
    pos += size;
  }
}

function segmentFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, "0")}.log`;
}
