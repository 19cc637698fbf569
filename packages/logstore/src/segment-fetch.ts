import fs from "node:fs";
import path from "node:path";
import { CorruptSegmentError } from "./errors";
import { fsyncDirectory } from "./fsync-directory";
import { RESTORING_SUFFIX } from "./log-loader";
import type { RemoteSegmentSource } from "./remote-segments";
import { Segment, type SegmentLimits, segmentFileName } from "./segment";

/**
 * Fetches an evicted segment's bytes back into `<base>.log.restoring` and loads them (every batch
 * CRC-checked, indexes rebuilt into `.restoring` files). The result must describe the same
 * segment the placeholder did (offsets, size, records): anything else is refused as corrupt and
 * its files removed. Nothing live changes here: `install` makes it the live segment.
 */
export async function fetchSegment(
  placeholder: Segment,
  source: RemoteSegmentSource,
  limits: SegmentLimits,
  nowMs: number,
): Promise<Segment> {
  const { dir, baseOffset } = placeholder;
  const remote = placeholder.remote;
  if (remote === null) throw new Error(`segment ${baseOffset} is not evicted`);
  const restoring = path.join(dir, segmentFileName(baseOffset, "log", RESTORING_SUFFIX));
  const fetched = await source.fetch(remote.ref, baseOffset);
  const chunks = fetched instanceof Uint8Array ? [fetched] : fetched;
  const file = await fs.promises.open(restoring, "w");
  try {
    let written = 0;
    for await (const chunk of chunks) {
      // Past the evicted size is already wrong: stop before writing more than the segment held.
      if (written + chunk.length > placeholder.sizeBytes)
        throw sizeDefect(baseOffset, "more than", placeholder);
      for (let at = 0; at < chunk.length; ) {
        const { bytesWritten } = await file.write(chunk, at, chunk.length - at, written + at);
        at += bytesWritten;
      }
      written += chunk.length;
    }
    if (written !== placeholder.sizeBytes) throw sizeDefect(baseOffset, String(written), placeholder);
    await file.sync();
  } catch (error) {
    await file.close();
    await fs.promises.rm(restoring, { force: true });
    throw error;
  }
  await file.close();
  const { segment } = Segment.load(dir, baseOffset, limits, {
    nowMs,
    verifyCrc: true,
    truncateTail: false,
    sealed: true,
    suffix: RESTORING_SUFFIX,
  });
  const defect = segment.corruption?.reason ?? differences(segment, placeholder);
  if (defect !== null) {
    discard(segment);
    throw new CorruptSegmentError(baseOffset, segment.corruption?.position ?? 0, `fetched back: ${defect}`);
  }
  return segment;
}

function sizeDefect(baseOffset: number, fetched: string, placeholder: Segment): CorruptSegmentError {
  return new CorruptSegmentError(
    baseOffset,
    0,
    `fetched ${fetched} bytes for an evicted segment of ${placeholder.sizeBytes}`,
  );
}

/** Renames a fetched segment's files to their live names (the `.log` first: a crash after it keeps the file). */
export function install(segment: Segment): void {
  segment.renameTo("");
  fsyncDirectory(segment.dir);
}

/** Closes and removes a fetched segment that is not wanted any more. */
export function discard(segment: Segment): void {
  segment.close();
  for (const kind of ["log", "index", "timeindex"] as const)
    fs.rmSync(segment.filePath(kind), { force: true });
}

function differences(fetched: Segment, placeholder: Segment): string | null {
  if (fetched.nextOffset !== placeholder.nextOffset) {
    return `it ends at offset ${fetched.nextOffset}, the evicted segment at ${placeholder.nextOffset}`;
  }
  if (fetched.recordCount !== placeholder.recordCount) {
    return `it holds ${fetched.recordCount} records, the evicted segment ${placeholder.recordCount}`;
  }
  return null;
}
