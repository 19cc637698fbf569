import type { ObjectStore } from "@lastword/object-store";
import type { CrashHook } from "../fault-points";
import type { Logger } from "../logger";
import { BackgroundPass } from "./background-pass";
import { SEGMENT_PREFIX, SEGMENT_SIDECAR_SUFFIXES } from "./bucket-layout";
import type { DueObject, ManifestChangesRepository } from "./manifest-changes.repository";

export interface SupersededObjectsOptions {
  store: ObjectStore;
  changes: Pick<ManifestChangesRepository, "due" | "markDeleted" | "pendingBelow">;
  logger: Logger;
  /**
   * How long a superseded object stays (default 5 min): a worker that loaded the manifest before
   * the change (a rebuild, a fetch of an evicted segment) may still be reading it.
   */
  graceMs?: number;
  /** How often a pass runs (default 10 s, or the grace period when shorter, but at least 100 ms). */
  intervalMs?: number;
  /** Tests only: crash points (fault-points.ts). */
  fault?: CrashHook;
}

/**
 * Deletes objects the manifest stopped naming (a cleaner pass's old segments, consolidated commit
 * objects once no partition's row names them, retention's) after the grace period, sidecars with
 * segment objects, and records when: the erasure evidence lists them. Every worker runs it; a
 * deletion twice is harmless (deleting a missing object is not an error).
 */
export class SupersededObjects {
  readonly #o: SupersededObjectsOptions;
  readonly #graceMs: number;
  readonly #intervalMs: number;
  readonly #pass: BackgroundPass;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: SupersededObjectsOptions) {
    this.#o = options;
    this.#graceMs = options.graceMs ?? 5 * 60_000;
    // A short grace (tests, or an operator who wants objects gone fast) is not held up by the pass interval.
    this.#intervalMs = options.intervalMs ?? Math.min(10_000, Math.max(100, this.#graceMs));
    this.#pass = new BackgroundPass(
      () => this.deleteDue(),
      options.logger,
      "superseded object deletion failed",
    );
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#pass.start(), this.#intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#pass.settled();
  }

  /** One pass; answers how many objects it deleted. */
  async deleteDue(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const due = await this.#o.changes.due(this.#graceMs);
      if (due.length === 0) break;
      for (const object of due) await this.#delete(object);
      deleted += due.length;
    }
    if (deleted > 0) this.#o.logger.info({ deleted }, "superseded objects deleted");
    return deleted;
  }

  /**
   * An erasure's objects: the partition's superseded objects below the tombstone go now, without
   * the grace period (a reader still holding an older manifest gets a retriable error and reads
   * the new objects on its retry: hosting/log-errors.ts). Objects a manifest row still names (a
   * commit object shared with partitions that have not consolidated) stay; answers how many.
   */
  async deleteBelow(partitionId: string, below: number): Promise<{ deleted: number; shared: number }> {
    const pending = await this.#o.changes.pendingBelow(partitionId, below);
    const free = pending.filter((object) => !object.named);
    for (const object of free) await this.#delete(object);
    if (free.length > 0) this.#o.logger.info({ partitionId, deleted: free.length }, "erased objects deleted");
    return { deleted: free.length, shared: pending.length - free.length };
  }

  async #delete(object: DueObject): Promise<void> {
    this.#o.fault?.("before-superseded-delete");
    const keys = [object.objectKey];
    if (object.objectKey.startsWith(SEGMENT_PREFIX)) {
      keys.push(...SEGMENT_SIDECAR_SUFFIXES.map((suffix) => `${object.objectKey}${suffix}`));
    }
    for (const key of keys) await this.#o.store.delete(key);
    await this.#o.changes.markDeleted(object.ids);
  }
}
