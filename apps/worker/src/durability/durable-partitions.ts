import { createHash } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { DataPlaneError } from "@lastword/dataplane";
import { seedLog } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import type { HostedLog, OpenLog, OpenLogOptions } from "../hosting/hosted-log";
import { LeaderEpochHistory } from "../hosting/leader-epochs";
import type { Logger } from "../logger";
import { FENCE_FILE } from "../ownership/storage-fence";
import type { CommitWindow } from "./commit-window";
import type { ManifestRepository, ManifestRow, PartitionManifest } from "./manifest.repository";

export interface DurablePartitionsOptions {
  store: ObjectStore;
  manifest: Pick<ManifestRepository, "load" | "start">;
  window: CommitWindow;
  logger: Logger;
}

/**
 * Partitions whose durable home is object storage. Opening one reconciles its local directory with
 * the manifest first: a directory that is missing, behind, ahead (appends never committed) or
 * written by an older owner than the manifest's last writer is rebuilt from the manifest's objects;
 * only a log ending exactly at the manifest's end, last written at an epoch no older than the
 * manifest's, is served as it is.
 */
export class DurablePartitions {
  readonly #options: DurablePartitionsOptions;

  constructor(options: DurablePartitionsOptions) {
    this.#options = options;
  }

  get window(): CommitWindow {
    return this.#options.window;
  }

  async open(
    partitionId: string,
    epoch: number,
    options: OpenLogOptions,
    openLog: OpenLog,
  ): Promise<HostedLog> {
    const { window, manifest } = this.#options;
    // A reopen (config change) at the same epoch: the log and the window already agree.
    if (window.tracks(partitionId, epoch)) return openLog(options);
    const state = await manifest.load(partitionId);
    // Read before the slot records its own epoch: the epoch of whoever last wrote this directory.
    const localEpoch = LeaderEpochHistory.load(options.dir).latestEpoch;
    let log = await openLog(options);
    let end = state.durableEndOffset;
    if (end === null) {
      if (!(await manifest.start(partitionId, epoch, log.logEndOffset))) {
        await log.close();
        throw lostLease(partitionId);
      }
      end = log.logEndOffset;
    } else if (log.logEndOffset !== end || lastWriterEpoch(state) > localEpoch) {
      this.#options.logger.info(
        { partitionId, localEnd: log.logEndOffset, durableEnd: end, rows: state.rows.length },
        "rebuilding partition from object storage",
      );
      await log.close();
      await this.#rebuild(options.dir, state, end);
      log = await openLog(options);
      if (log.logEndOffset !== end) {
        await log.close();
        throw new DataPlaneError(
          "PARTITION_UNAVAILABLE",
          `partition ${partitionId} rebuilt from object storage ends at ${log.logEndOffset}, the manifest at ${end}`,
        );
      }
    }
    window.track(partitionId, epoch, end);
    return log;
  }

  async #rebuild(dir: string, state: PartitionManifest, end: number): Promise<void> {
    await clearLogFiles(dir);
    const start = state.rows[0]?.baseOffset ?? end;
    await seedLog(dir, start, this.#batches(state.rows, start, end));
    const epochs = LeaderEpochHistory.load(dir);
    for (const row of state.rows) epochs.assign(row.epoch, row.baseOffset);
  }

  /** The rows' bytes in offset order, each checked against its length and hash. */
  async *#batches(rows: readonly ManifestRow[], start: number, end: number): AsyncGenerator<Buffer> {
    let next = start;
    for (const row of rows) {
      if (row.baseOffset !== next) {
        throw new Error(`manifest gap: a row starts at ${row.baseOffset}, the previous one ended at ${next}`);
      }
      const bytes = await this.#options.store.get(row.objectKey, {
        offset: row.position,
        length: row.byteSize,
      });
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      if (bytes.length !== row.byteSize || sha256 !== row.sha256) {
        throw new Error(
          `object ${row.objectKey} does not hold the bytes its manifest row names (offset ${row.baseOffset})`,
        );
      }
      yield bytes;
      next = row.lastOffset + 1;
    }
    if (next !== end) throw new Error(`the manifest's rows end at ${next}, its durable end is ${end}`);
  }
}

function lastWriterEpoch(state: PartitionManifest): number {
  return state.rows.at(-1)?.epoch ?? -1;
}

/** Everything in a partition directory but the storage fence its new owner already wrote. */
async function clearLogFiles(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name !== FENCE_FILE)
      .map((name) => rm(join(dir, name), { recursive: true, force: true })),
  );
}

function lostLease(partitionId: string): DataPlaneError {
  return new DataPlaneError(
    "NOT_OWNER",
    `this worker lost the lease on partition ${partitionId} while opening it`,
  );
}
