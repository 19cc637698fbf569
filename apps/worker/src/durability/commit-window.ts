import { createHash } from "node:crypto";
import { DataPlaneError } from "@lastword/dataplane";
import type { ObjectStore } from "@lastword/object-store";
import type { HostedLog } from "../hosting/hosted-log";
import { readBelow } from "../hosting/visible-log";
import type { Logger } from "../logger";
import { commitObjectKey } from "./bucket-layout";
import type { CommitEntry, ManifestRepository } from "./manifest.repository";

/** What the window needs of a hosted partition: its lease epoch and its log while it is open. */
export interface CommittedPartition {
  readonly epoch: number;
  /** The open log, or null while it is (re)opening or closed. */
  currentLog(): HostedLog | null;
}

export interface CommitWindowOptions {
  workerId: string;
  store: ObjectStore;
  manifest: Pick<ManifestRepository, "commit" | "heldEnds">;
  logger: Logger;
  /** The partition as hosted now, or undefined when this worker no longer serves it. */
  partition(partitionId: string): CommittedPartition | undefined;
  /** A partition whose commit was fenced: this worker lost it. */
  fenced(partitionId: string): void;
  /** How long appends gather before one object carries them all (default 10 ms). */
  windowMs?: number;
  /** How long a produce waits to be durable before it is answered with a retriable error (default 10 s). */
  ackTimeoutMs?: number;
  /** Tests only (the `before-manifest-commit` fault point): runs between the PUT and the commit. */
  afterUpload?: () => void;
  /** Called for each partition whose rows a window committed (its commit rows may be consolidated later). */
  committed?: (partitionId: string) => void;
}

interface Waiter {
  endOffset: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Tracked {
  epoch: number;
  /** One past the last offset committed to the manifest by this worker at this epoch. */
  durableEnd: number;
  waiters: Waiter[];
}

interface Part {
  partitionId: string;
  tracked: Tracked;
  chunks: Buffer[];
  baseOffset: number;
  lastOffset: number;
  startsSegment: boolean;
}

const READ_CHUNK_BYTES = 4 << 20;
/** At most this much of one partition per object; a longer backlog (the store was down) takes more windows. */
const MAX_PART_BYTES = 16 << 20;
/** Backoff after a failed upload or commit, doubled per failure up to the cap. */
const RETRY_BASE_MS = 50;
const RETRY_MAX_MS = 2_000;

/**
 * The worker's commit window. Appends mark their partition dirty; every `windowMs` one object
 * holding the new stored batches of every dirty partition is PUT under a key naming this worker and
 * a unique id, then one Postgres statement commits each partition's row under its lease epoch
 * (manifest.repository.ts). A produce is answered once its offsets are below the committed end. A
 * partition whose commit is fenced is dropped: its waiters get NOT_OWNER and its bytes never count
 * as acknowledged. A failed PUT or commit keeps the partitions dirty and is retried: the manifest
 * of a partition only ever grows contiguously from the end it had, so a later window cannot commit
 * past bytes an earlier one failed to.
 */
export class CommitWindow {
  readonly #options: CommitWindowOptions;
  readonly #tracked = new Map<string, Tracked>();
  readonly #dirty = new Set<string>();
  /** The partitions the flush under way collected: their commit may be in flight. */
  #committing = new Set<string>();
  readonly #windowMs: number;
  readonly #ackTimeoutMs: number;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #failures = 0;
  #closed = false;

  constructor(options: CommitWindowOptions) {
    this.#options = options;
    this.#windowMs = options.windowMs ?? 10;
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
  }

  /** True while this worker tracks the partition at this epoch (its log was reconciled at open). */
  tracks(partitionId: string, epoch: number): boolean {
    return this.#tracked.get(partitionId)?.epoch === epoch;
  }

  /** The partition's committed end at this epoch, or null when it is not tracked at that epoch. */
  durableEnd(partitionId: string, epoch: number): number | null {
    const tracked = this.#tracked.get(partitionId);
    return tracked?.epoch === epoch ? tracked.durableEnd : null;
  }

  /** Starts tracking a partition opened at `epoch` whose manifest ends at `durableEnd`. */
  track(partitionId: string, epoch: number, durableEnd: number): void {
    this.#forget(partitionId, notOwner(partitionId));
    this.#tracked.set(partitionId, { epoch, durableEnd, waiters: [] });
  }

  /**
   * Moves a tracked partition's committed end forward to `end` without a row: the manifest's end
   * already moved there (retention deleted records before they were uploaded; see
   * ManifestChangesRepository.trimBelow). Waiters below it are answered.
   */
  advance(partitionId: string, epoch: number, end: number): void {
    const tracked = this.#tracked.get(partitionId);
    if (!tracked || tracked.epoch !== epoch || end <= tracked.durableEnd) return;
    tracked.durableEnd = end;
    this.#release(tracked);
  }

  /**
   * Stops tracking (the partition was closed: handed back, lost, the worker stopping); waiters are
   * refused. With a commit of the partition in flight their appends may yet be committed, and the
   * refusal says so (the client must not resend them); otherwise nothing will commit them.
   */
  untrack(partitionId: string): void {
    const inFlight = this.#committing.has(partitionId);
    this.#forget(partitionId, inFlight ? closedUnderAppend(partitionId) : notOwner(partitionId));
  }

  /** Schedules the partition's appended batches for the next window without waiting (relaxed mode). */
  schedule(partitionId: string): void {
    if (!this.#tracked.has(partitionId)) return;
    this.#dirty.add(partitionId);
    this.#arm(this.#windowMs);
  }

  /** Resolves once every offset below `endOffset` of the partition is committed to the manifest. */
  durable(partitionId: string, epoch: number, endOffset: number): Promise<void> {
    const tracked = this.#tracked.get(partitionId);
    if (!tracked || tracked.epoch !== epoch) return Promise.reject(closedUnderAppend(partitionId));
    if (tracked.durableEnd >= endOffset) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        tracked.waiters = tracked.waiters.filter((w) => w !== waiter);
        reject(
          new DataPlaneError(
            "PARTITION_UNAVAILABLE",
            `the append to partition ${partitionId} is not yet durable in object storage; retry`,
            { retriable: true, writeMayHaveHappened: true },
          ),
        );
      }, this.#ackTimeoutMs);
      const waiter: Waiter = { endOffset, resolve, reject, timer };
      tracked.waiters.push(waiter);
      this.schedule(partitionId);
    });
  }

  /** Commits what is dirty now, then stops; later appends are refused by their partitions' close. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#flushing;
    if (this.#dirty.size > 0) await this.#flush().catch(() => undefined);
    this.#closed = true;
    for (const id of [...this.#tracked.keys()]) this.untrack(id);
  }

  #arm(delayMs: number): void {
    if (this.#timer || this.#flushing || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#flushing = this.#flush()
        .then(
          () => {
            this.#failures = 0;
          },
          (error: unknown) => {
            this.#failures++;
            this.#options.logger.warn({ err: error }, "commit window failed; retrying");
          },
        )
        .finally(() => {
          this.#flushing = null;
          this.#committing = new Set();
          if (this.#dirty.size > 0) this.#arm(this.#retryDelay());
        });
    }, delayMs);
  }

  #retryDelay(): number {
    if (this.#failures === 0) return this.#windowMs;
    return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (this.#failures - 1));
  }

  async #flush(): Promise<void> {
    const ids = [...this.#dirty];
    this.#dirty.clear();
    this.#committing = new Set(ids);
    const parts: Part[] = [];
    try {
      let unreadable: unknown = null;
      for (const id of ids) {
        try {
          const part = await this.#collect(id);
          if (part) parts.push(part);
        } catch (error) {
          // One partition whose log cannot be read (retention moved its start past what was not yet
          // uploaded) must not hold up the others; it is tried again after the backoff.
          unreadable = error;
          this.#options.logger.warn(
            { partitionId: id, err: error },
            "commit window could not read a partition",
          );
          this.#dirty.add(id);
        }
      }
      if (parts.length > 0) await this.#commit(parts);
      if (unreadable !== null) throw unreadable;
    } catch (error) {
      // Nothing of this window counts: every partition in it goes again in the next one.
      for (const id of ids) if (this.#tracked.has(id)) this.#dirty.add(id);
      throw error;
    }
  }

  /** One object for the window's partitions, then their rows in one epoch-checked statement. */
  async #commit(parts: readonly Part[]): Promise<void> {
    const { key, entries, body } = this.#assemble(parts);
    await this.#options.store.put(key, body);
    this.#options.afterUpload?.();
    const committed = await this.#options.manifest.commit(key, entries);
    const missed = entries.filter((entry) => !committed.has(entry.partitionId));
    const held = await this.#options.manifest.heldEnds(missed);
    for (const part of parts) {
      const id = part.partitionId;
      this.#settle(part, committed.has(id) ? part.lastOffset + 1 : (held.get(id) ?? null));
      if (committed.has(id)) this.#options.committed?.(id);
    }
  }

  /** The stored batches of a partition past its committed end, read from its local log. */
  async #collect(partitionId: string): Promise<Part | null> {
    const tracked = this.#tracked.get(partitionId);
    const partition = this.#options.partition(partitionId);
    if (!tracked) return null;
    if (!partition || partition.epoch !== tracked.epoch) {
      this.#forget(partitionId, notOwner(partitionId));
      return null;
    }
    const log = partition.currentLog();
    if (!log || log.isClosed) {
      // Reopening (a config change): its batches go in a later window.
      this.#dirty.add(partitionId);
      return null;
    }
    const chunks: Buffer[] = [];
    let from = tracked.durableEnd;
    // A row never spans two segments: one ending at a segment's end is replaced whole when that
    // segment is uploaded as one object (segment-tiering.ts). The rest goes in the next window.
    const segmentEnd = log.nextSegmentBase(from);
    const end = Math.min(log.logEndOffset, segmentEnd ?? Number.POSITIVE_INFINITY);
    let bytes = 0;
    while (from < end && bytes < MAX_PART_BYTES) {
      const read = readBelow(await log.readBatches(from, { maxBytes: READ_CHUNK_BYTES }), end);
      if (read.bytes.length === 0 || read.nextOffset <= from) break;
      chunks.push(read.bytes);
      bytes += read.bytes.length;
      from = read.nextOffset;
    }
    if (from < log.logEndOffset) this.#dirty.add(partitionId);
    if (chunks.length === 0) return null;
    return {
      partitionId,
      tracked,
      chunks,
      baseOffset: tracked.durableEnd,
      lastOffset: from - 1,
      startsSegment: log.nextSegmentBase(tracked.durableEnd - 1) === tracked.durableEnd,
    };
  }

  #assemble(parts: readonly Part[]): { key: string; entries: CommitEntry[]; body: Buffer } {
    const entries: CommitEntry[] = [];
    let position = 0;
    for (const part of parts) {
      const hash = createHash("sha256");
      let byteSize = 0;
      for (const chunk of part.chunks) {
        hash.update(chunk);
        byteSize += chunk.length;
      }
      entries.push({
        partitionId: part.partitionId,
        epoch: part.tracked.epoch,
        baseOffset: part.baseOffset,
        lastOffset: part.lastOffset,
        position,
        byteSize,
        sha256: hash.digest("hex"),
        startsSegment: part.startsSegment,
      });
      position += byteSize;
    }
    const body = Buffer.concat(parts.flatMap((part) => part.chunks));
    return { key: commitObjectKey(this.#options.workerId), entries, body };
  }

  /** `durableEnd`: the partition's committed end now, null when it was fenced. */
  #settle(part: Part, durableEnd: number | null): void {
    const { partitionId, tracked } = part;
    if (this.#tracked.get(partitionId) !== tracked) return;
    if (durableEnd === null) {
      this.#forget(partitionId, fencedError(partitionId));
      this.#options.fenced(partitionId);
      return;
    }
    // Not ours but still held: an earlier commit whose answer was lost had moved the end already.
    const stale = durableEnd !== part.lastOffset + 1;
    tracked.durableEnd = Math.max(tracked.durableEnd, durableEnd);
    if (this.#release(tracked) || stale) this.#dirty.add(partitionId);
  }

  /** Answers the waiters at or below the committed end; true when some still wait. */
  #release(tracked: Tracked): boolean {
    const still: Waiter[] = [];
    for (const waiter of tracked.waiters) {
      if (waiter.endOffset > tracked.durableEnd) {
        still.push(waiter);
        continue;
      }
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
    tracked.waiters = still;
    return still.length > 0;
  }

  #forget(partitionId: string, error: Error): void {
    const tracked = this.#tracked.get(partitionId);
    if (!tracked) return;
    this.#tracked.delete(partitionId);
    this.#dirty.delete(partitionId);
    for (const waiter of tracked.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }
}

/** An append whose partition closed before its commit was known: it may still be committed. */
function closedUnderAppend(partitionId: string): DataPlaneError {
  return new DataPlaneError(
    "NOT_OWNER",
    `partition ${partitionId} was closed on this worker while the append waited for its commit; it may still be committed`,
    { writeMayHaveHappened: true },
  );
}

function notOwner(partitionId: string): DataPlaneError {
  return new DataPlaneError("NOT_OWNER", `this worker no longer owns partition ${partitionId}`);
}

function fencedError(partitionId: string): DataPlaneError {
  return new DataPlaneError(
    "NOT_OWNER",
    `this worker lost the lease on partition ${partitionId} before its append was committed (never acknowledged)`,
  );
}
