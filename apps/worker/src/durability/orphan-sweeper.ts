import type { ObjectStore } from "@lastword/object-store";
import type { Logger } from "../logger";
import { BackgroundPass } from "./background-pass";
import {
  COMMIT_PREFIX,
  commitObjectTime,
  mainObjectKey,
  partitionObjectTime,
  SEGMENT_PREFIX,
  TAIL_PREFIX,
} from "./bucket-layout";
import type { ManifestRepository } from "./manifest.repository";

export interface OrphanSweeperOptions {
  store: ObjectStore;
  manifest: Pick<ManifestRepository, "referenced">;
  logger: Logger;
  /**
   * How old an object must be before it may go (default 15 min). Far above a commit's life (PUT,
   * then the commit within seconds; a retry writes a new object) and any clock skew between workers.
   */
  graceMs?: number;
  /** How often `maybeSweep` starts a pass (default 10 min): a pass lists every commit object. */
  intervalMs?: number;
}

const CHECK_BATCH = 500;

/**
 * Deletes objects no manifest row names once they are older than the grace period: what a writer
 * fenced or crashed between its PUT and its commit (or its segment upload's row swap) left
 * behind, and a deleted topic's. An object is only ever named by rows committed right after its
 * PUT, so one unnamed past the grace period stays unnamed. A sidecar (`.snapshot`, `.keys`) goes
 * with its segment object.
 */
export class OrphanSweeper {
  readonly #options: OrphanSweeperOptions;
  readonly #graceMs: number;
  readonly #intervalMs: number;
  readonly #pass: BackgroundPass;
  #lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(options: OrphanSweeperOptions) {
    this.#options = options;
    this.#graceMs = options.graceMs ?? 15 * 60_000;
    this.#intervalMs = options.intervalMs ?? 10 * 60_000;
    this.#pass = new BackgroundPass(() => this.sweep(), options.logger, "orphan sweep failed");
  }

  /**
   * Starts a pass in the background when the interval has passed and none is running (the caller
   * is the ownership loop, which must not wait on a listing); a failed pass is logged and retried
   * at the next interval.
   */
  maybeSweep(): void {
    if (this.#pass.running || performance.now() - this.#lastStartedAt < this.#intervalMs) return;
    this.#lastStartedAt = performance.now();
    this.#pass.start();
  }

  /** Waits for a running pass (shutdown). */
  async stop(): Promise<void> {
    this.#lastStartedAt = Number.POSITIVE_INFINITY;
    await this.#pass.settled();
  }

  /** One pass over every commit, segment and tail object; answers how many it deleted. */
  async sweep(now = Date.now()): Promise<number> {
    let deleted = 0;
    for (const [prefix, timeOf] of [
      [COMMIT_PREFIX, commitObjectTime],
      [SEGMENT_PREFIX, partitionObjectTime],
      [TAIL_PREFIX, partitionObjectTime],
    ] as const) {
      let candidates: string[] = [];
      for await (const object of this.#options.store.list(prefix)) {
        const writtenAt = timeOf(object.key);
        if (writtenAt === null || now - writtenAt < this.#graceMs) continue;
        candidates.push(object.key);
        if (candidates.length >= CHECK_BATCH) {
          deleted += await this.#deleteUnreferenced(candidates);
          candidates = [];
        }
      }
      deleted += await this.#deleteUnreferenced(candidates);
    }
    if (deleted > 0) this.#options.logger.info({ deleted }, "orphaned objects deleted");
    return deleted;
  }

  async #deleteUnreferenced(keys: readonly string[]): Promise<number> {
    const referenced = await this.#options.manifest.referenced(keys.map(mainObjectKey));
    const orphans = keys.filter((key) => !referenced.has(mainObjectKey(key)));
    for (const key of orphans) await this.#options.store.delete(key);
    return orphans.length;
  }
}
