import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ScanEvidence, SegmentEvidence } from "@lastword/erasure";
import type { HostedLog } from "../hosting/hosted-log";

/** Bytes per read while a partition is scanned for a subject key. */
const SCAN_READ_BYTES = 4 << 20;

function segmentFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, "0")}.log`;
}

/**
 * Scans every segment of the partition for records of `key` below `belowOffset` (all offsets when
 * null) and fingerprints each segment file as it is on disk, so the proof names the exact bytes it
 * looked at. A segment swapped away mid-scan throws (ENOENT); the caller retries on the next tick.
 */
export async function scanForKey(
  log: HostedLog,
  dir: string,
  key: Buffer,
  belowOffset: number | null,
  now: Date,
): Promise<ScanEvidence> {
  const end = belowOffset ?? Number.POSITIVE_INFINITY;
  const matches: number[] = [];
  let next = log.logStartOffset;
  while (next < end) {
    const page = await log.read(next, { maxBytes: SCAN_READ_BYTES });
    const last = page[page.length - 1];
    if (!last) break;
    for (const record of page) {
      if (record.offset < end && record.key !== null && record.key.equals(key)) matches.push(record.offset);
    }
    next = last.offset + 1;
  }
  const segments: SegmentEvidence[] = [];
  let bytesScanned = 0;
  for (const segment of await log.segments()) {
    const bytes = await readFile(join(dir, segmentFileName(segment.baseOffset)));
    bytesScanned += bytes.length;
    segments.push({
      baseOffset: segment.baseOffset,
      lastOffset: segment.lastOffset,
      sizeBytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  return {
    scannedAt: now.toISOString(),
    partitionLogStart: log.logStartOffset,
    partitionLogEnd: log.logEndOffset,
    belowOffset,
    matches,
    result: matches.length === 0 ? "absent" : "present",
    segments,
    bytesScanned,
  };
}
