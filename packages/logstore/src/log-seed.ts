import fs from "node:fs";
import path from "node:path";
import { LOG_START_OFFSET_CHECKPOINT, writeCheckpoint } from "./checkpoint-file";
import { fsyncDirectory, parseSegmentFileName, segmentFileName } from "./segment";

/**
 * Lays down a partition directory from batches kept elsewhere (object storage), before
 * `PartitionLog.open`: the batches, exactly as they were stored, become one segment starting at
 * `startOffset`, and the log start offset is checkpointed there. Nothing is trusted: with no
 * recovery point, open CRC-checks every batch, rebuilds the indexes and replays producer state.
 * `batches` must be whole stored batches in offset order, the first at `startOffset`.
 * Refuses a directory that already holds segments.
 */
export async function seedLog(
  dir: string,
  startOffset: number,
  batches: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<void> {
  if (!Number.isSafeInteger(startOffset) || startOffset < 0) {
    throw new RangeError(`invalid start offset ${startOffset}`);
  }
  await fs.promises.mkdir(dir, { recursive: true });
  if (fs.readdirSync(dir).some((name) => parseSegmentFileName(name) !== null)) {
    throw new Error(`${dir} already holds segments; a log is seeded only into an empty directory`);
  }
  const file = await fs.promises.open(path.join(dir, segmentFileName(startOffset, "log")), "wx");
  try {
    for await (const chunk of batches) await file.write(chunk);
    await file.sync();
  } finally {
    await file.close();
  }
  writeCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT, startOffset);
  fsyncDirectory(dir);
}
