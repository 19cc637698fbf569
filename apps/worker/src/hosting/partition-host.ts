import { rm } from "node:fs/promises";
import { DataPlaneError } from "@lastword/dataplane";
import type { Clock } from "@lastword/logstore";
import type { DurabilityMode } from "@lastword/topic-config";
import type { Logger } from "../logger";
import type { FenceRepository } from "../ownership/fence.repository";
import type { ClaimedPartition, LeaseRepository, RenewedLease } from "../ownership/lease.repository";
import { partitionDir } from "../ownership/partition-paths";
import type { HostedLog, OpenLog, OpenLogOptions } from "./hosted-log";
import { PartitionSlot } from "./partition-slot";
import { visibleUpTo } from "./visible-log";

/** How many deleted partitions a host remembers for its answers to requests that still name them. */
const MAX_DELETED_REMEMBERED = 10_000;

export interface PartitionHostOptions {
  dataDir: string;
  workerId: string;
  openLog: OpenLog;
  /** Handed to every log it opens. */
  clock: Clock;
  leases: LeaseRepository;
  fence: Pick<FenceRepository, "holds">;
  logger: Logger;
  /** A write needs the lease to stay valid at least this long (it must finish inside the lease). */
  fenceMarginMs: number;
  /** With an object store: logs are reconciled with the manifest at open, appends acknowledged once committed. */
  durability?: HostDurability;
}

/**
 * What the host asks of object durability (durability/durable-partitions.ts implements it). Declared
 * here because durability/ sits above hosting/ (it tiers the host's segments): the host names the
 * calls it makes, not the class.
 */
export interface HostDurability {
  /** Opens the partition's log reconciled with its manifest. */
  open(partitionId: string, epoch: number, options: OpenLogOptions, openLog: OpenLog): Promise<HostedLog>;
  /** Removes the copy of a partition this worker lost (`ours`: no later owner fenced the directory). */
  evictCopy(partitionId: string, dir: string, ours: boolean): Promise<void>;
  /** The commit window (durability/commit-window.ts). */
  readonly window: {
    durableEnd(partitionId: string, epoch: number): number | null;
    schedule(partitionId: string): void;
    durable(partitionId: string, epoch: number, endOffset: number): Promise<void>;
    untrack(partitionId: string): void;
    close(): Promise<void>;
  };
}

/**
 * The partitions this worker serves. Reads need an open log; writes additionally pass the fencing
 * checks: the partition directory still names our epoch (storage-fence.ts, checked again right before
 * the append), and while the lease is fresh, owner + epoch + expiry in Postgres. A produce goes on
 * when Postgres cannot be asked (down, or renewals failing): the storage fence alone then decides,
 * since nobody can claim the partition without Postgres and whoever does writes the fence first.
 * Background work (cleaner, retention) needs both the storage fence and a lease proven in Postgres.
 */
export class PartitionHost {
  readonly #slots = new Map<string, PartitionSlot>();
  readonly #rollListeners: ((partitionId: string) => void)[] = [];
  readonly #appendListeners: ((partitionId: string) => void)[] = [];
  readonly #openListeners: ((slot: PartitionSlot) => void)[] = [];
  readonly #closeListeners: ((partitionId: string) => void)[] = [];
  /** Partitions closed because their row was deleted (ids are never reused); past the bound the oldest go first. */
  readonly #deleted = new Set<string>();
  readonly #options: PartitionHostOptions;
  /** Copies of lost partitions being removed: a new claim of one waits for its removal. */
  readonly #evicting = new Map<string, Promise<void>>();
  /** performance.now() of the first failed database check since the last success; null when reachable. */
  #databaseDownSince: number | null = null;

  constructor(options: PartitionHostOptions) {
    this.#options = options;
  }

  /** The injected clock every log here runs on (the write path stamps with it too). */
  get clock(): Clock {
    return this.#options.clock;
  }

  get size(): number {
    return this.#slots.size;
  }

  ids(): string[] {
    return [...this.#slots.keys()];
  }

  slot(partitionId: string): PartitionSlot | undefined {
    return this.#slots.get(partitionId);
  }

  /**
   * True for a partition this worker closed because its topic (or the partition) was deleted: a
   * request naming it from a catalog answer older than the deletion is answered as Kafka answers
   * one for a deleted partition (UNKNOWN_TOPIC_OR_PARTITION), not as one whose leader moved — a
   * client told NOT_LEADER_OR_FOLLOWER refreshes its metadata, finds no topic, and never learns why
   * (librdkafka then drops the partition silently).
   */
  wasDeleted(partitionId: string): boolean {
    return this.#deleted.has(partitionId);
  }

  /** Starts serving a freshly claimed partition; the log opens in the background. */
  adopt(claim: ClaimedPartition, leaseValidUntil: number): PartitionSlot {
    const dir = partitionDir(this.#options.dataDir, claim.organizationId, claim.topicId, claim.index);
    const { durability, openLog, clock } = this.#options;
    const slot = new PartitionSlot(
      claim,
      dir,
      // The storage fence is checked again under the log's mutex, right before the bytes go down:
      // an append queued behind another's fsync when a new owner wrote its epoch is refused, so
      // the new owner's recovery has no earlier owner's append still to wait for.
      (options) => {
        const opening = { ...options, clock, beforeWrite: () => this.#storageFence(slot) };
        return durability
          ? durability.open(claim.partitionId, claim.epoch, opening, openLog)
          : openLog(opening);
      },
      leaseValidUntil,
      this.#options.workerId,
      this.#evicting.get(claim.partitionId),
    );
    this.#slots.set(claim.partitionId, slot);
    void slot.settled().then(() => this.#logOpened(slot));
    return slot;
  }

  /** Runs `fn` against the partition's log as readers may see it (see `#visible`). */
  read<T>(partitionId: string, fn: (log: HostedLog) => Promise<T>): Promise<T> {
    const slot = this.#require(partitionId);
    return slot.use((log) => fn(this.#visible(slot, log)));
  }

  /**
   * With an object store and `lastword.durability=object`, readers see the log only up to its
   * committed durable end: an append is served once it is acknowledged, never before.
   */
  #visible(slot: PartitionSlot, log: HostedLog): HostedLog {
    const { durability } = this.#options;
    if (!durability || log.config.durability === "local") return log;
    const end = durability.window.durableEnd(slot.partitionId, slot.epoch);
    return end === null ? log : visibleUpTo(log, end);
  }

  /**
   * Runs `fn` after the fencing checks. `input` (e.g. the request body still arriving) is awaited after
   * them, so the database round trip overlaps the upload; the storage fence is checked again once it
   * is there, with no await between that check and `fn`.
   */
  write<I, T>(
    partitionId: string,
    input: Promise<I>,
    fn: (log: HostedLog, input: I) => Promise<T>,
  ): Promise<T> {
    const slot = this.#require(partitionId);
    return slot.use(async (log) => {
      await this.#fence(slot, "request");
      const ready = await input;
      this.#storageFence(slot);
      return fn(log, ready);
    });
  }

  /**
   * Resolves once the partition's offsets below `endOffset` are as durable as its topic asks: with
   * an object store, committed to the manifest (or, under `lastword.durability=local`, only
   * scheduled for the next commit window); without one, at once (the append's fsync was it).
   */
  async durable(partitionId: string, endOffset: number, mode: DurabilityMode): Promise<void> {
    const { durability } = this.#options;
    if (!durability) return;
    if (mode === "local") durability.window.schedule(partitionId);
    // Called after the append: a partition closed since is answered by the window as one whose
    // append may still be committed, never as a plain NOT_OWNER the client would resend.
    else await durability.window.durable(partitionId, this.#slots.get(partitionId)?.epoch ?? -1, endOffset);
  }

  /**
   * Background work that changes files (a cleaner pass, retention, object-storage tiering): fenced
   * like a write, one at a time per partition, not waited on at close.
   */
  background<T>(partitionId: string, fn: (log: HostedLog) => Promise<T>): Promise<T> {
    const slot = this.#require(partitionId);
    return slot.exclusive(async (log) => {
      await this.#fence(slot, "background");
      return fn(log);
    });
  }

  /** True while the database answered the last lease renewal or fencing check (false during an outage). */
  get databaseReachable(): boolean {
    return this.#databaseDownSince === null;
  }

  /** The ownership loop could not renew: produce stops asking Postgres per write until a renewal succeeds. */
  databaseFailed(): void {
    this.#databaseDownSince ??= performance.now();
  }

  /**
   * True while the last renewal still covers this slot with the fencing margin to spare (no database
   * trip). Lease safety reads the monotonic clock, never the injected one: a lease lasts real elapsed
   * time (Postgres expires it on its own clock), so neither a test clock held still nor a wall-clock
   * step may stretch it.
   */
  leaseFresh(slot: PartitionSlot): boolean {
    return slot.leaseValidUntil - performance.now() > this.#options.fenceMarginMs;
  }

  /** Called after an append rolled a partition's segment (a closed segment may have made it cleanable). */
  onRoll(listener: (partitionId: string) => void): void {
    this.#rollListeners.push(listener);
  }

  /** Called each time a partition's log opened (claimed or reopened). */
  onOpened(listener: (slot: PartitionSlot) => void): void {
    this.#openListeners.push(listener);
  }

  /** Called each time this worker stops serving a partition (handed back, lost or deleted). */
  onClosed(listener: (partitionId: string) => void): void {
    this.#closeListeners.push(listener);
  }

  notifyRolled(partitionId: string): void {
    for (const listener of this.#rollListeners) listener(partitionId);
  }

  /** Called after every acknowledged append (long polls waiting on the partition wake). */
  onAppended(listener: (partitionId: string) => void): void {
    this.#appendListeners.push(listener);
  }

  notifyAppended(partitionId: string): void {
    for (const listener of this.#appendListeners) listener(partitionId);
  }

  slots(): PartitionSlot[] {
    return [...this.#slots.values()];
  }

  /**
   * Applies a renewal: leases we still hold get the new deadline (and a reopen if the topic config
   * changed); leases gone or at another epoch are closed at once, their files removed if the row is gone.
   */
  async applyRenewal(renewed: readonly RenewedLease[], leaseValidUntil: number): Promise<void> {
    this.#databaseDownSince = null;
    const byId = new Map(renewed.map((lease) => [lease.partitionId, lease]));
    const lost: string[] = [];
    for (const slot of this.#slots.values()) {
      const lease = byId.get(slot.partitionId);
      if (!lease || lease.epoch !== slot.epoch) {
        lost.push(slot.partitionId);
        continue;
      }
      slot.leaseValidUntil = leaseValidUntil;
      if (lease.configVersion !== slot.configVersion) this.#reopen(slot, lease);
    }
    for (const lease of renewed) {
      if (!this.#slots.has(lease.partitionId))
        await this.#options.leases.release(lease.partitionId, lease.epoch);
    }
    if (lost.length === 0) return;
    const existing = await this.#options.leases.existing(lost);
    await Promise.all(lost.map((id) => this.drop(id, existing.has(id) ? "lease lost" : "partition deleted")));
  }

  /** Stops serving a partition and closes its log; a deleted partition's files go with it. */
  async drop(partitionId: string, reason: "lease lost" | "partition deleted" | "released"): Promise<void> {
    const slot = this.#slots.get(partitionId);
    if (!slot) return;
    // Before the slot goes: a long poll woken by the close below must see why.
    if (reason === "partition deleted") this.#rememberDeleted(partitionId);
    this.#slots.delete(partitionId);
    for (const listener of this.#closeListeners) listener(partitionId);
    this.#options.durability?.window.untrack(partitionId);
    this.#options.logger.info({ partitionId, epoch: slot.epoch, reason }, "partition closed");
    await slot.close();
    if (reason === "partition deleted") await rm(slot.dir, { recursive: true, force: true });
    else if (reason === "lease lost" && this.#options.durability) {
      // Housekeeping removes what this cannot (removeStaleCopies): a failure here is not the drop's.
      const eviction = this.#options.durability
        .evictCopy(partitionId, slot.dir, slot.supersededBy() === null)
        .catch((error: unknown) =>
          this.#options.logger.warn({ partitionId, err: error }, "copy of a lost partition not removed"),
        )
        .finally(() => this.#evicting.delete(partitionId));
      this.#evicting.set(partitionId, eviction);
      await eviction;
    }
  }

  /** Closes every log (shutdown); leases are released by the caller afterwards. */
  async closeAll(): Promise<void> {
    // What was appended gets its commit before the logs close (waiting produces are answered).
    await this.#options.durability?.window.close();
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    await Promise.all(slots.map((slot) => slot.close()));
  }

  #rememberDeleted(partitionId: string): void {
    this.#deleted.add(partitionId);
    // Bounded: the oldest deletions are forgotten first (by then no client's catalog names them).
    if (this.#deleted.size > MAX_DELETED_REMEMBERED) {
      const oldest = this.#deleted.values().next().value;
      if (oldest !== undefined) this.#deleted.delete(oldest);
    }
  }

  #require(partitionId: string): PartitionSlot {
    const slot = this.#slots.get(partitionId);
    if (!slot) throw new DataPlaneError("NOT_OWNER", `this worker does not own partition ${partitionId}`);
    return slot;
  }

  async #fence(slot: PartitionSlot, kind: "request" | "background"): Promise<void> {
    const { fenceMarginMs, fence } = this.#options;
    // A request checks the storage fence right before its append (write()); one stat is enough.
    if (kind === "background") this.#storageFence(slot);
    // Renewals failing (Postgres unreachable or too slow): the storage fence above is what holds.
    if (!this.leaseFresh(slot)) {
      if (kind === "request") return;
      throw this.#staleLease(slot);
    }
    if (kind === "request" && this.#databaseDownSince !== null) return;
    let holds: boolean;
    try {
      holds = await fence.holds(slot.partitionId, slot.epoch, fenceMarginMs);
    } catch (error) {
      this.databaseFailed();
      if (kind === "request") return;
      throw new DataPlaneError(
        "PARTITION_UNAVAILABLE",
        "the lease could not be checked (database unreachable)",
        {
          cause: error,
        },
      );
    }
    if (!holds) this.#fenced(slot, "lease lost");
  }

  /** Refuses the write if a later owner wrote its epoch into the partition directory. */
  #storageFence(slot: PartitionSlot): void {
    const current = slot.supersededBy();
    if (current !== null) this.#fenced(slot, `directory fenced at epoch ${current}, ours is ${slot.epoch}`);
  }

  #fenced(slot: PartitionSlot, why: string): never {
    // Not awaited: the close waits for in-flight requests, this one included.
    void this.drop(slot.partitionId, "lease lost");
    throw new DataPlaneError(
      "NOT_OWNER",
      `this worker lost the lease on partition ${slot.partitionId} (${why})`,
    );
  }

  #staleLease(slot: PartitionSlot): DataPlaneError {
    return new DataPlaneError(
      "PARTITION_UNAVAILABLE",
      `the lease on partition ${slot.partitionId} could not be renewed lately; writes resume once it is`,
    );
  }

  #reopen(slot: PartitionSlot, lease: RenewedLease): void {
    this.#options.logger.info(
      { partitionId: slot.partitionId, configs: lease.configs },
      "topic config changed",
    );
    void slot.reopen(lease.configs, lease.configVersion).then(() => this.#logOpened(slot));
  }

  #logOpened(slot: PartitionSlot): void {
    const { logger } = this.#options;
    if (slot.state === "open") {
      logger.info({ partitionId: slot.partitionId, epoch: slot.epoch }, "partition open");
      for (const listener of this.#openListeners) listener(slot);
    }
    if (slot.state === "failed") {
      logger.error({ partitionId: slot.partitionId, err: slot.error }, "partition could not be opened");
    }
  }
}
