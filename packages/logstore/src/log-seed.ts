import fs from "node:fs";
import path from "node:path";
import { LOG_START_OFFSET_CHECKPOINT, writeCheckpoint, writeFileAtomically } from "./checkpoint-file";
import { fsyncDirectory } from "./fsync-directory";
import { decodeProducerSnapshot, snapshotFileName } from "./producer-state-snapshot";
import { type RemoteSegmentEntry, writeRemoteSegments } from "./remote-segments";
import { parseSegmentFileName, segmentFileName } from "./segment";

/** One stretch of a seeded log, in offset order. */
export type SeedPart =
  /** A closed segment left in the remote tier: only its bookkeeping goes down (fetched back when read). */
  | { kind: "remote"; entry: RemoteSegmentEntry }
  /** Whole stored batches in offset order, the first at `baseOffset`: one local segment. */
  | { kind: "local"; baseOffset: number; batches: AsyncIterable<Uint8Array> | Iterable<Uint8Array> };

export interface SeedOptions {
  /** Offsets below are gone (at or after the first part's base). */
  logStartOffset: number;
  parts: readonly SeedPart[];
  /**
   * A producer-state snapshot file (as `producerSnapshotAt` returned it) to lay down beside the
   * segments, so recovery replays only what follows it instead of fetching evicted segments back.
   */
  producerSnapshot?: Uint8Array;
}

/**
 * Lays down a partition directory from batches kept elsewhere (object storage), before
 * `PartitionLog.open`: each local part becomes one segment file, each remote part an evicted
 * segment, and the log start offset is checkpointed. Nothing local is trusted: with no recovery
 * point, open CRC-checks every local batch, rebuilds the indexes and replays producer state after
 * the snapshot. The last part should be local (it becomes the active segment; an empty one is
 * made after a remote last part). Refuses a directory that already holds segments.
 */
export async function seedLog(dir: string, options: SeedOptions): Promise<void> {
  const { logStartOffset, parts } = options;
  if (!Number.isSafeInteger(logStartOffset) || logStartOffset < 0) {
    throw new RangeError(`invalid log start offset ${logStartOffset}`);
  }
  await fs.promises.mkdir(dir, { recursive: true });
  if (fs.readdirSync(dir).some((name) => parseSegmentFileName(name) !== null)) {
    throw new Error(`${dir} already holds segments; a log is seeded only into an empty directory`);
  }
  const remote: RemoteSegmentEntry[] = [];
  for (const part of parts) {
    if (part.kind === "remote") remote.push(part.entry);
    else await writeSegment(dir, part.baseOffset, part.batches);
  }
  if (remote.length > 0) writeRemoteSegments(dir, remote);
  if (options.producerSnapshot) {
    const snapshot = decodeProducerSnapshot(Buffer.from(options.producerSnapshot));
    if (typeof snapshot === "string")
      throw new Error(`the producer snapshot to seed is unreadable: ${snapshot}`);
    writeFileAtomically(dir, snapshotFileName(snapshot.offset), options.producerSnapshot);
  }
  writeCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT, logStartOffset);
  fsyncDirectory(dir);
}

async function writeSegment(
  dir: string,
  baseOffset: number,
  batches: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<void> {
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0)
    throw new RangeError(`invalid base offset ${baseOffset}`);
  const file = await fs.promises.open(path.join(dir, segmentFileName(baseOffset, "log")), "wx");
  try {
    for await (const chunk of batches) await file.write(chunk);
    await file.sync();
  } finally {
    await file.close();
  }
}
