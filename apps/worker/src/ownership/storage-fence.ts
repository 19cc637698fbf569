import { closeSync, fsyncSync, openSync, readFileSync, statSync } from "node:fs";
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";

/** The file in a partition directory naming the fencing epoch of the worker allowed to write it. */
export const FENCE_FILE = "lease-epoch";

interface FenceContent {
  epoch: number;
  workerId: string;
}

/**
 * Storage-level fencing. The worker that claims a partition writes its epoch (the lease's fencing
 * token) into `<partition dir>/lease-epoch` atomically before it opens the log, and every write of
 * the holder first checks the file names its own epoch. The check works without Postgres: a worker
 * cut off from the database keeps writing the partitions it holds, and one whose lease was taken
 * over meanwhile is refused by the file the new owner wrote, without asking the database. The
 * check runs under the log's mutex right before each append's bytes are written, with no event-loop
 * turn between (the log store's `beforeWrite`): an append that passed it is already on disk, so the
 * new owner opens the log as soon as its epoch is written, with nothing of the earlier owner's to
 * wait for.
 */
export class StorageFence {
  readonly #path: string;
  readonly #epoch: number;
  /** Last stat seen and the epoch read then; the file is replaced by rename, so a new owner changes the inode. */
  #seen: { ino: number; mtimeMs: number; size: number; epoch: number } | null = null;

  private constructor(dir: string, epoch: number) {
    this.#path = join(dir, FENCE_FILE);
    this.#epoch = epoch;
  }

  /**
   * Writes `epoch` as the partition's fencing epoch (temp file, fsync, rename, fsync of the directory).
   * Refuses if the file already names a higher epoch (a later owner wrote it: this claim is stale).
   */
  static async claim(dir: string, epoch: number, workerId: string): Promise<StorageFence> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, FENCE_FILE);
    const previous = await readFence(path);
    if (previous && previous.epoch > epoch) throw new StaleEpochError(epoch, previous.epoch);
    const temp = `${path}.${process.pid}.${epoch}.tmp`;
    const file = await open(temp, "w");
    try {
      await file.writeFile(`${JSON.stringify({ epoch, workerId } satisfies FenceContent)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
    const dirHandle = openSync(dir, "r");
    try {
      fsyncSync(dirHandle);
    } finally {
      closeSync(dirHandle);
    }
    return new StorageFence(dir, epoch);
  }

  /**
   * The epoch the file names when it is not ours (a later owner took over), or null when it is ours.
   * Synchronous on purpose: one stat(2) per write, read again only when the file changed, and no
   * event-loop hop between this check and the append that follows it.
   */
  supersededBy(): number | null {
    let epoch: number;
    try {
      const stat = statSync(this.#path);
      const seen = this.#seen;
      if (seen && seen.ino === stat.ino && seen.mtimeMs === stat.mtimeMs && seen.size === stat.size) {
        epoch = seen.epoch;
      } else {
        epoch = parseFence(readFileSync(this.#path, "utf8"))?.epoch ?? Number.NaN;
        this.#seen = { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size, epoch };
      }
    } catch {
      // Gone (partition deleted) or unreadable: we can no longer prove we are the writer.
      return Number.NaN;
    }
    return epoch === this.#epoch ? null : epoch;
  }
}

export class StaleEpochError extends Error {
  readonly code = "NOT_OWNER";

  constructor(epoch: number, current: number) {
    super(`partition claimed at epoch ${epoch} but its data directory is fenced at epoch ${current}`);
  }
}

/** The fencing epoch written in a partition directory, or null when it has none. */
export async function fencedEpoch(dir: string): Promise<number | null> {
  return (await readFence(join(dir, FENCE_FILE)))?.epoch ?? null;
}

async function readFence(path: string): Promise<FenceContent | null> {
  try {
    return parseFence(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function parseFence(text: string): FenceContent | null {
  try {
    const parsed = JSON.parse(text) as Partial<FenceContent>;
    return typeof parsed.epoch === "number" && typeof parsed.workerId === "string"
      ? { epoch: parsed.epoch, workerId: parsed.workerId }
      : null;
  } catch {
    return null;
  }
}
