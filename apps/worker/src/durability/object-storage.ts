import type { Clock } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import type { CrashHook } from "../fault-points";
import type { PartitionHost } from "../hosting/partition-host";
import type { Logger } from "../logger";
import { CommitWindow } from "./commit-window";
import { DurablePartitions } from "./durable-partitions";
import { ManifestRepository } from "./manifest.repository";
import { ManifestChangesRepository } from "./manifest-changes.repository";
import { ObjectEvidenceScanner } from "./object-evidence";
import { OrphanSweeper } from "./orphan-sweeper";
import { SegmentTiering, type SegmentTieringOptions } from "./segment-tiering";
import { SupersededObjects } from "./superseded-objects";

/** Timings of the object-storage machinery (defaults in each part). */
export interface ObjectStorageTimings {
  commitWindowMs?: number;
  orphanSweep?: { graceMs?: number; intervalMs?: number };
  tiering?: Pick<SegmentTieringOptions, "consolidateAfterMs" | "fetchedKeepMs" | "fullScanMs" | "intervalMs">;
  superseded?: { graceMs?: number; intervalMs?: number };
}

export interface ObjectStorageOptions extends ObjectStorageTimings {
  store: ObjectStore;
  databaseUrl: string;
  workerId: string;
  /** A worker heard of within this long holds its copies (an erasure waits for them to go). */
  liveWithinMs: number;
  /** The key filters beside segment objects narrow erasure proofs; false reads every object. */
  keyFilters: boolean;
  logger: Logger;
  clock: Clock;
  /** The worker's partitions (built after this, which it is handed to). */
  host: () => PartitionHost;
  /** Tests only: crash points (fault-points.ts). */
  fault?: CrashHook;
}

/**
 * Everything that makes object storage partitions' durable home on one worker: the manifest, the
 * commit window before a produce is answered, rebuilding a partition at open, moving closed
 * segments to segment objects (and off the disk), deleting superseded objects, sweeping orphans.
 */
export class ObjectStorage {
  readonly manifest: ManifestRepository;
  readonly changes: ManifestChangesRepository;
  readonly partitions: DurablePartitions;
  readonly tiering: SegmentTiering;
  readonly superseded: SupersededObjects;
  readonly sweeper: OrphanSweeper;
  readonly evidence: ObjectEvidenceScanner;
  readonly #store: ObjectStore;

  constructor(options: ObjectStorageOptions) {
    const { store, databaseUrl, workerId, logger, clock } = options;
    this.#store = store;
    this.manifest = new ManifestRepository(databaseUrl, workerId);
    this.changes = new ManifestChangesRepository(databaseUrl, workerId);
    const window = new CommitWindow({
      workerId,
      store,
      manifest: this.manifest,
      logger,
      windowMs: options.commitWindowMs,
      partition: (partitionId) => options.host().slot(partitionId),
      fenced: (partitionId) => void options.host().drop(partitionId, "lease lost"),
      committed: (partitionId) => this.tiering.committed(partitionId),
      ...(options.fault && { afterUpload: () => options.fault?.("before-manifest-commit") }),
    });
    this.partitions = new DurablePartitions({ store, manifest: this.manifest, window, logger });
    this.tiering = new SegmentTiering({
      store,
      manifest: this.manifest,
      changes: this.changes,
      window,
      get host() {
        return options.host();
      },
      logger,
      clock,
      fault: options.fault,
      ...options.tiering,
    });
    this.superseded = new SupersededObjects({
      store,
      changes: this.changes,
      logger,
      fault: options.fault,
      ...options.superseded,
    });
    this.sweeper = new OrphanSweeper({ store, manifest: this.manifest, logger, ...options.orphanSweep });
    this.evidence = new ObjectEvidenceScanner({
      store,
      manifest: this.manifest,
      changes: this.changes,
      workerId,
      liveWithinMs: options.liveWithinMs,
      keyFilters: options.keyFilters,
    });
  }

  /**
   * An erasure's replaced objects below `below`: deleted now (superseded-objects.ts), and the
   * partitions on this worker that still share a commit object with them consolidate at once
   * (another worker's do so within `consolidateAfterMs`).
   */
  async eraseReplaced(partitionId: string, below: number): Promise<{ deleted: number; shared: number }> {
    const replaced = await this.superseded.deleteBelow(partitionId, below);
    if (replaced.shared > 0) this.tiering.consolidateNow(await this.changes.sharersBelow(partitionId, below));
    return replaced;
  }

  /** Starts the background loops once the worker serves; partitions are synced as they open and roll. */
  start(host: PartitionHost): void {
    host.onOpened((slot) => this.tiering.touch(slot.partitionId));
    host.onRoll((partitionId) => this.tiering.touch(partitionId));
    this.tiering.start();
    this.superseded.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.tiering.stop(), this.superseded.stop(), this.sweeper.stop()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.manifest.close(), this.changes.close(), this.#store.close()]);
  }
}
