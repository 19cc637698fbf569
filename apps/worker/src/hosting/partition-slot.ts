import { DataPlaneError } from "@lastword/dataplane";
import type { ClaimedPartition } from "../ownership/lease.repository";
import { StorageFence } from "../ownership/storage-fence";
import type { HostedLog, OpenLogOptions } from "./hosted-log";
import { LeaderEpochHistory } from "./leader-epochs";
import { dataPlaneErrorOf } from "./log-errors";
import type { AuditedPartition } from "./tombstone-audit";

export type SlotState = "opening" | "open" | "failed" | "closed";

/** How long a request waits for a partition that is (re)opening before it is told to retry. */
export const OPEN_WAIT_MS = 5_000;

/**
 * One partition hosted by this worker: its lease facts, its open log, and the requests using it.
 * Lifecycle changes (open, reopen, close) run one at a time and wait for in-flight requests, so a
 * log is never closed under a running append.
 */
export class PartitionSlot {
  readonly partitionId: string;
  readonly dir: string;
  readonly epoch: number;
  /** The partition as audit events name it. */
  readonly audited: AuditedPartition;
  configs: Record<string, string | number>;
  configVersion: number;
  /** performance.now() until which the lease is known valid (from the last successful renewal). */
  leaseValidUntil: number;

  #state: SlotState = "opening";
  #log: HostedLog | null = null;
  #leaderEpochs: LeaderEpochHistory | null = null;
  #fence: StorageFence | null = null;
  #error: unknown = null;
  #inflight = 0;
  #drained: (() => void)[] = [];
  #lifecycle: Promise<void> = Promise.resolve();
  /** Background work that changes files, one at a time (see `exclusive`). */
  #exclusive: Promise<unknown> = Promise.resolve();
  readonly #openLog: (options: Omit<OpenLogOptions, "clock">) => Promise<HostedLog>;
  readonly #workerId: string;

  constructor(
    claim: ClaimedPartition,
    dir: string,
    openLog: (options: Omit<OpenLogOptions, "clock">) => Promise<HostedLog>,
    leaseValidUntil: number,
    workerId: string,
    /** What must finish before the directory is touched (the removal of an earlier copy). */
    after: Promise<unknown> = Promise.resolve(),
  ) {
    this.partitionId = claim.partitionId;
    this.dir = dir;
    this.epoch = claim.epoch;
    this.audited = {
      partitionId: claim.partitionId,
      organizationId: claim.organizationId,
      topicId: claim.topicId,
      topicName: claim.topicName,
      index: claim.index,
      dir,
      epoch: claim.epoch,
    };
    this.configs = claim.configs;
    this.configVersion = claim.configVersion;
    this.leaseValidUntil = leaseValidUntil;
    this.#openLog = openLog;
    this.#workerId = workerId;
    const open = () => this.#open();
    this.#lifecycle = after.then(open, open);
  }

  get state(): SlotState {
    return this.#state;
  }

  /** The partition's leader epochs, this slot's lease epoch the latest; null until the log is open. */
  get leaderEpochs(): LeaderEpochHistory | null {
    return this.#leaderEpochs;
  }

  /** The open log without holding it (the commit window reads what appends left); null unless open. */
  currentLog(): HostedLog | null {
    return this.#state === "open" ? this.#log : null;
  }

  get error(): unknown {
    return this.#error;
  }

  /**
   * The epoch the partition directory is fenced at when it is no longer ours (a later owner wrote its
   * epoch there), or null while we are its writer. See storage-fence.ts.
   */
  supersededBy(): number | null {
    return this.#fence ? this.#fence.supersededBy() : Number.NaN;
  }

  /** Resolves once the current open/reopen/close step has finished (whatever its outcome). */
  settled(): Promise<void> {
    return this.#lifecycle;
  }

  /**
   * Runs `fn` against the open log. A request is waited for before the log closes; background work
   * (cleaning, retention) is not: closing the log under it makes it abort, so a lost lease stops it at once.
   */
  async use<T>(fn: (log: HostedLog) => Promise<T>, kind: "request" | "background" = "request"): Promise<T> {
    if (this.#state === "opening") await this.#waitForOpen();
    if (this.#state === "closed") throw notOwner(this.partitionId);
    if (this.#state === "failed" || this.#log === null) throw unavailable(this.partitionId, this.#error);
    const log = this.#log;
    if (kind === "background") return fn(log);
    this.#inflight++;
    try {
      return await fn(log);
    } finally {
      this.#inflight--;
      if (this.#inflight === 0) for (const resolve of this.#drained.splice(0)) resolve();
    }
  }

  /**
   * Runs background work that changes the partition's files (a cleaner pass, retention, moving
   * segments to and from object storage) after the one before it finished: they read files the
   * others replace, and the manifest follows the files only if they take turns.
   */
  exclusive<T>(fn: (log: HostedLog) => Promise<T>): Promise<T> {
    const run = this.#exclusive.then(
      () => this.use(fn, "background"),
      () => this.use(fn, "background"),
    );
    this.#exclusive = run.catch(() => undefined);
    return run;
  }

  /** Reopens the log with a changed topic config (the config passed to open is the one in force). */
  reopen(configs: Record<string, string | number>, configVersion: number): Promise<void> {
    this.configs = configs;
    this.configVersion = configVersion;
    return this.#transition(async () => {
      if (this.#state === "closed") return;
      this.#state = "opening";
      await this.#closeLog();
      await this.#open();
    });
  }

  /** Stops serving at once (new requests get NOT_OWNER) and closes the log after in-flight ones end. */
  close(): Promise<void> {
    const wasClosed = this.#state === "closed";
    this.#state = "closed";
    if (wasClosed) return this.#lifecycle;
    return this.#transition(() => this.#closeLog());
  }

  #transition(step: () => Promise<void>): Promise<void> {
    this.#lifecycle = this.#lifecycle.then(step, step);
    return this.#lifecycle;
  }

  async #open(): Promise<void> {
    try {
      // Our epoch goes into the directory before the log opens, so from here on an earlier owner's
      // writes are refused by the storage itself (storage-fence.ts).
      this.#fence ??= await StorageFence.claim(this.dir, this.epoch, this.#workerId);
      const log = await this.#openLog({ dir: this.dir, config: this.configs });
      if (this.#state === "closed") {
        await log.close();
        return;
      }
      // Our lease epoch leads from the log end we found (Kafka assigns a new leader's epoch there).
      this.#leaderEpochs ??= LeaderEpochHistory.load(this.dir);
      this.#leaderEpochs.assign(this.epoch, log.logEndOffset);
      this.#log = log;
      this.#error = null;
      this.#state = "open";
    } catch (error) {
      this.#error = error;
      if (this.#state !== "closed") this.#state = "failed";
    }
  }

  async #closeLog(): Promise<void> {
    if (this.#inflight > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
    const log = this.#log;
    this.#log = null;
    await log?.close();
  }

  async #waitForOpen(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), OPEN_WAIT_MS);
    });
    const outcome = await Promise.race([this.#lifecycle.then(() => "settled" as const), timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      throw new DataPlaneError("PARTITION_UNAVAILABLE", `partition ${this.partitionId} is still opening`);
    }
  }
}

function notOwner(partitionId: string): DataPlaneError {
  return new DataPlaneError("NOT_OWNER", `this worker no longer owns partition ${partitionId}`);
}

function unavailable(partitionId: string, cause: unknown): DataPlaneError {
  const inner = dataPlaneErrorOf(cause);
  return new DataPlaneError(
    inner.code === "INTERNAL" ? "PARTITION_UNAVAILABLE" : inner.code,
    `partition ${partitionId} could not be opened: ${inner.message}`,
    { retriable: false, cause },
  );
}
