import { createHash } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { DataPlaneError } from "@lastword/dataplane";
import { type RemoteSegmentSource, type SeedPart, seedLog } from "@lastword/logstore";
import { type ObjectStore, ObjectStoreError } from "@lastword/object-store";
import type { HostedLog, OpenLog, OpenLogOptions } from "../hosting/hosted-log";
import { type EpochEntry, LeaderEpochHistory } from "../hosting/leader-epochs";
import type { Logger } from "../logger";
import { FENCE_FILE } from "../ownership/storage-fence";
import { KEY_INDEX_SUFFIX, SNAPSHOT_SUFFIX } from "./bucket-layout";
import type { CommitWindow } from "./commit-window";
import type { ManifestRepository, ManifestRow, PartitionManifest } from "./manifest.repository";
import { decodeSegmentRef, remoteEntryOf } from "./segment-objects";
import { fetchSegmentObject } from "./segment-transfer";

export interface DurablePartitionsOptions {
  store: ObjectStore;
  manifest: Pick<
    ManifestRepository,
    "load" | "start" | "registerCache" | "forgetCache" | "leaderEpochs" | "recordLeaderEpochs"
  >;
  window: CommitWindow;
  logger: Logger;
}

/**
 * Partitions whose durable home is object storage. Opening one reconciles its local directory with
 * the manifest first: only a log that ends exactly at the manifest's end, reaches back to its
 * start, and was last written at an epoch no older than any row's is served as it is; anything
 * else (missing, behind, ahead with appends never committed, written by an older owner) is laid
 * down again from the manifest — segment rows as evicted segments (fetched back when read),
 * commit rows as local segments from their bytes. Evicted segments are fetched through the same
 * store, their bytes checked against the row's length and SHA-256. The partition's leader epochs
 * come along from Postgres (each owner's lease epoch where its writes began), not from the rows,
 * whose epoch is the lease that committed them: a row the next owner uploaded or consolidated
 * holds batches earlier epochs appended.
 */
export class DurablePartitions {
  readonly #options: DurablePartitionsOptions;
  /** The log store's remote tier: a segment object by its ref, checked before it is handed over. */
  readonly remote: RemoteSegmentSource;

  constructor(options: DurablePartitionsOptions) {
    this.#options = options;
    this.remote = {
      // Streamed and checked as it goes (segment-transfer.ts): a segment of any size comes back in
      // bounded memory, and a wrong object fails before the log store installs it.
      fetch: async (ref) => {
        const { key, sha256, size } = decodeSegmentRef(ref);
        return fetchSegmentObject(options.store, { objectKey: key, sha256, byteSize: size });
      },
    };
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
    let rows: Promise<readonly ManifestRow[]> | null = null;
    const keyIndexSnapshot = this.#keyIndexSource(partitionId, () => {
      rows ??= manifest.load(partitionId).then((loaded) => loaded.rows);
      return rows;
    });
    const opening = { ...options, remote: this.remote, keyIndexSnapshot };
    // A reopen (config change) at the same epoch: the log and the window already agree.
    if (window.tracks(partitionId, epoch)) return openLog(opening);
    const [state, keptEpochs] = await Promise.all([
      manifest.load(partitionId),
      manifest.leaderEpochs(partitionId),
    ]);
    rows = Promise.resolve(state.rows);
    // Before anything is laid down: an erasure's proof then knows this disk may hold the partition.
    await manifest.registerCache(partitionId);
    // Read before the slot records its own epoch: the epoch of whoever last wrote this directory.
    const localEpochs = LeaderEpochHistory.load(options.dir);
    let rebuilt = false;
    let log = await openLog(opening).catch((error: unknown) => {
      // A directory the log store cannot open is rebuilt when the manifest has the partition.
      if (state.durableEndOffset === null) throw error;
      this.#options.logger.warn({ partitionId, err: error }, "local partition directory unreadable");
      return null;
    });
    let end = state.durableEndOffset;
    if (end === null) {
      const opened = log!;
      if (!(await manifest.start(partitionId, epoch, opened.logEndOffset))) {
        await opened.close();
        throw lostLease(partitionId);
      }
      end = opened.logEndOffset;
    } else if (log === null || !(await agrees(log, state, localEpochs.latestEpoch))) {
      this.#options.logger.info(
        { partitionId, localEnd: log?.logEndOffset ?? null, durableEnd: end, rows: state.rows.length },
        "rebuilding partition from object storage",
      );
      await log?.close();
      await this.#rebuild(options.dir, state, end);
      rebuilt = true;
      log = await openLog(opening);
      if (log.logEndOffset !== end) {
        await log.close();
        throw new DataPlaneError(
          "PARTITION_UNAVAILABLE",
          `partition ${partitionId} rebuilt from object storage ends at ${log.logEndOffset}, the manifest at ${end}`,
        );
      }
    }
    // Our epoch leads from the end we open at, in the kept history (the directory's own before
    // one was kept; a rebuilt one's, then, as its rows tell it) and on disk, where the slot reads it.
    const known = keptEpochs ?? (rebuilt ? epochsOfRows(state.rows) : localEpochs.entries);
    const history = LeaderEpochHistory.write(options.dir, known);
    history.assign(epoch, end);
    if (!(await manifest.recordLeaderEpochs(partitionId, epoch, history.entries))) {
      await log!.close();
      throw lostLease(partitionId);
    }
    window.track(partitionId, epoch, end);
    return log!;
  }

  /**
   * The persisted key index of the newest segment row that kept one (bucket-layout.ts), fetched
   * once however often the log is opened here; the index code decides whether it fits the log.
   */
  #keyIndexSource(
    partitionId: string,
    rows: () => Promise<readonly ManifestRow[]>,
  ): NonNullable<OpenLogOptions["keyIndexSnapshot"]> {
    let fetched: Promise<Buffer | null> | null = null;
    const fetch = async (): Promise<Buffer | null> => {
      const row = newestKeyIndexRow(await rows());
      return row ? this.#sidecar(`${row.objectKey}${KEY_INDEX_SUFFIX}`) : null;
    };
    return {
      load: () => {
        fetched ??= fetch();
        return fetched;
      },
      report: (seeding) => {
        if (seeding.seeded)
          this.#options.logger.info({ partitionId, ...seeding }, "key index from object storage");
        else
          this.#options.logger.info({ partitionId, reason: seeding.reason }, "key index rebuilt by a scan");
      },
    };
  }

  async #rebuild(dir: string, state: PartitionManifest, end: number): Promise<void> {
    await clearLogFiles(dir);
    await seedLog(dir, {
      logStartOffset: manifestStart(state, end),
      parts: this.#parts(state.rows, end),
      producerSnapshot: (await this.#producerSnapshot(state.rows)) ?? undefined,
    });
  }

  /**
   * Removes this worker's copy of a partition another worker took over (with an object store the
   * disk is only a cache; the bucket and the new owner's disk hold the partition), unless another
   * owner's epoch is in the directory (a data directory shared between workers: it is theirs now).
   */
  async evictCopy(partitionId: string, dir: string, ours: boolean): Promise<void> {
    if (ours) await rm(dir, { recursive: true, force: true });
    await this.#options.manifest.forgetCache(partitionId);
  }

  /**
   * The rows as the log store lays them down: each segment row an evicted segment, each run of
   * commit rows one local segment; an empty active segment at the end after a segment row.
   */
  #parts(rows: readonly ManifestRow[], end: number): SeedPart[] {
    const parts: SeedPart[] = [];
    let next = rows[0]?.baseOffset ?? end;
    let run: ManifestRow[] = [];
    const flush = () => {
      if (run.length === 0) return;
      parts.push({ kind: "local", baseOffset: run[0]!.baseOffset, batches: this.#batches(run) });
      run = [];
    };
    for (const row of rows) {
      if (row.baseOffset !== next) {
        throw new Error(`manifest gap: a row starts at ${row.baseOffset}, the previous one ended at ${next}`);
      }
      next = row.lastOffset + 1;
      if (row.kind === "commit") {
        // The writer began a segment here: so does the rebuilt log (the one before is closed and uploaded).
        if (row.startsSegment) flush();
        run.push(row);
        continue;
      }
      flush();
      if (row.stats === null) throw new Error(`segment row at ${row.baseOffset} has no bookkeeping`);
      parts.push({ kind: "remote", entry: remoteEntryOf({ ...row, stats: row.stats }) });
    }
    if (next !== end) throw new Error(`the manifest's rows end at ${next}, its durable end is ${end}`);
    flush();
    if (parts.at(-1)?.kind !== "local") parts.push({ kind: "local", baseOffset: end, batches: [] });
    return parts;
  }

  /** The rows' bytes in offset order, each checked against its length and hash. */
  async *#batches(rows: readonly ManifestRow[]): AsyncGenerator<Buffer> {
    for (const row of rows) {
      const bytes = await this.#options.store.get(row.objectKey, {
        offset: row.position,
        length: row.byteSize,
      });
      yield checked(bytes, row);
    }
  }

  /**
   * The producer-state snapshot kept beside the newest segment row that has one, so recovery
   * replays only what follows it; null when none was kept (recovery then fetches what it replays).
   */
  async #producerSnapshot(rows: readonly ManifestRow[]): Promise<Buffer | null> {
    const row = rows.findLast((r) => r.kind === "segment" && r.stats?.snapshot);
    return row ? this.#sidecar(`${row.objectKey}${SNAPSHOT_SUFFIX}`) : null;
  }

  /** A segment's sidecar object; null when it is gone (a row names it, but it is only a shortcut). */
  async #sidecar(key: string): Promise<Buffer | null> {
    try {
      return await this.#options.store.get(key);
    } catch (error) {
      if (error instanceof ObjectStoreError && error.code === "NOT_FOUND") return null;
      throw error;
    }
  }
}

/** The segment row whose `.index` sidecar was written last (rows commit in upload order). */
function newestKeyIndexRow(rows: readonly ManifestRow[]): ManifestRow | null {
  let newest: ManifestRow | null = null;
  for (const row of rows) {
    if (row.kind !== "segment" || !row.stats?.keyIndex) continue;
    if (
      !newest ||
      row.createdAtMs > newest.createdAtMs ||
      (row.createdAtMs === newest.createdAtMs && row.baseOffset > newest.baseOffset)
    )
      newest = row;
  }
  return newest;
}

/**
 * The best a manifest without kept leader epochs tells (one written before they were kept): each
 * row's committing epoch from its base offset.
 */
function epochsOfRows(rows: readonly ManifestRow[]): EpochEntry[] {
  const entries: EpochEntry[] = [];
  for (const row of rows) {
    if (row.epoch > (entries.at(-1)?.epoch ?? -1))
      entries.push({ epoch: row.epoch, startOffset: row.baseOffset });
  }
  return entries;
}

/** Where the manifest says the partition's log starts. */
export function manifestStart(state: PartitionManifest, end: number): number {
  return Math.max(state.rows[0]?.baseOffset ?? end, state.durableStartOffset ?? 0);
}

/**
 * Whether the local log may be served as it is: it ends at the manifest's end, reaches back to the
 * manifest's start (nothing missing below), keeps nothing the manifest says is gone, and its last
 * writer is no older than any row's.
 */
async function agrees(log: HostedLog, state: PartitionManifest, localEpoch: number): Promise<boolean> {
  const end = state.durableEndOffset!;
  const start = manifestStart(state, end);
  const first = (await log.segments())[0]?.baseOffset ?? log.logStartOffset;
  const newestEpoch = Math.max(-1, ...state.rows.map((row) => row.epoch));
  return (
    log.logEndOffset === end && first <= start && log.logStartOffset >= start && newestEpoch <= localEpoch
  );
}

function checked(bytes: Buffer, row: { objectKey: string; sha256: string; byteSize: number }): Buffer {
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (bytes.length !== row.byteSize || sha256 !== row.sha256) {
    throw new Error(`object ${row.objectKey} does not hold the bytes its manifest row names`);
  }
  return bytes;
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
