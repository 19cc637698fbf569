import { DataPlaneError, type TxnMarkerRequest } from "@lastword/dataplane";
import { ErrorCode } from "@lastword/kafka-protocol";
import type { Clock } from "@lastword/logstore";
import type { CrashHook } from "../../fault-points";
import type { Logger } from "../../logger";
import { renewalTimer } from "../../ownership/lease-holder";
import { type FindResult, holderAnswer } from "../coordinator-answer";
import { takeOverExpired } from "../coordinator-takeover";
import type { KafkaBroker, KafkaCatalog } from "../kafka-catalog";
import type { ProducerIdRepository } from "../producers/producer-ids.repository";
import type { HeldTxnLease, TxnLeaseRepository } from "./txn-lease.repository";
import {
  type TxnChange,
  TxnLeaseMovedError,
  type TxnPartition,
  type TxnRecord,
  type TxnStateName,
  type TxnStateRepository,
} from "./txn-state.repository";

/** Where a marker goes: the partition's current owner, this worker or another (txn-markers.ts). */
export interface MarkerWriter {
  write(partitionId: string, marker: TxnMarkerRequest): Promise<void>;
}

/** Kafka moves a transactional id to a fresh producer id once an epoch would reach Short.MaxValue. */
const EPOCH_EXHAUSTED = 32766;
const MARKER_RETRY_MIN_MS = 100;
const MARKER_RETRY_MAX_MS = 2_000;

/** A coordinator answer: 0, or a Kafka error code ("fenced" is mapped per request version by the handler). */
export type TxnOutcome = number | "fenced";

export type InitOutcome =
  | { ok: true; producerId: number; producerEpoch: number }
  | { ok: false; errorCode: TxnOutcome };

interface Held {
  tenantId: string;
  transactionalId: string;
  epoch: number;
  /** Monotonic (performance.now): past it the lease is not trusted even before renewal fails. */
  validUntil: number;
  adoptedAt: number;
  /** The last request that needed this id, on the clock: an id idle for a lease TTL is let go. */
  lastUsedAt: number;
}

/** Done on a state a client request found: a transaction being completed must finish first. */
const BUSY: ReadonlySet<TxnStateName> = new Set(["PrepareCommit", "PrepareAbort"]);

/**
 * This worker's share of the fleet's transaction coordination (Kafka's TransactionCoordinator):
 * the (tenant, transactional id) leases it holds, claimed through FindCoordinator key type 1 and
 * renewed as the group coordinator's are, and the state machine of each id's transaction, kept
 * in Postgres (txn-state.repository.ts) so the next owner resumes it.
 *
 * EndTxn records PrepareCommit/PrepareAbort first; then a marker goes to every partition of the
 * transaction through its current owner (retried until written: markers are idempotent), and
 * only then CompleteCommit/CompleteAbort, with a commit's offsets made visible in that same
 * step. The client is answered once the markers are in, or after `markerWaitMs` with the
 * decision durable (as Kafka answers after the prepare): the completion carries on here and,
 * should this worker die, on the next owner, which finishes every Prepare* it adopts. An Ongoing
 * transaction whose `transaction.timeout.ms` passed on the injected clock is aborted with the
 * producer epoch bumped, so the abandoned producer is fenced (as is one replaced by a new
 * InitProducerId for the same id).
 */
export class TxnCoordinator {
  readonly #leases: TxnLeaseRepository;
  readonly #states: TxnStateRepository;
  readonly #catalog: KafkaCatalog;
  readonly #producerIds: ProducerIdRepository;
  readonly #markers: MarkerWriter;
  readonly #logger: Logger;
  readonly #ttlMs: number;
  readonly #markerWaitMs: number;
  readonly #self: () => KafkaBroker;
  readonly #clock: Clock;
  readonly #fault: CrashHook | undefined;
  readonly #held = new Map<string, Held>();
  /** The completions under way, by key: one per transaction, however many ask for it. */
  readonly #completing = new Map<string, Promise<void>>();
  /** Requests of one id run one at a time here (the row lock orders them across workers). */
  readonly #serial = new Map<string, Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  #halted = false;

  constructor(deps: {
    leases: TxnLeaseRepository;
    states: TxnStateRepository;
    catalog: KafkaCatalog;
    producerIds: ProducerIdRepository;
    markers: MarkerWriter;
    logger: Logger;
    leaseTtlMs: number;
    self: () => KafkaBroker;
    clock: Clock;
    /** How long EndTxn waits for its markers before answering with the decision durable. */
    markerWaitMs?: number;
    fault?: CrashHook | undefined;
  }) {
    this.#leases = deps.leases;
    this.#states = deps.states;
    this.#catalog = deps.catalog;
    this.#producerIds = deps.producerIds;
    this.#markers = deps.markers;
    this.#logger = deps.logger;
    this.#ttlMs = deps.leaseTtlMs;
    this.#markerWaitMs = deps.markerWaitMs ?? 10_000;
    this.#self = deps.self;
    this.#clock = deps.clock;
    this.#fault = deps.fault;
  }

  start(): void {
    this.#timer = renewalTimer(this.#ttlMs, () => this.tick(), this.#logger, "transaction coordinator tick");
  }

  /** Stops renewing and forgets every lease (kill and graceful stop); completions stop at their next step. */
  halt(): void {
    this.#halted = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#held.clear();
  }

  async stop(): Promise<void> {
    this.halt();
    await this.#leases.releaseAll();
  }

  /**
   * One tick: renew the leases, adopt the ids dead coordinators left with work, then finish every
   * Prepare* held here and abort every Ongoing transaction past its timeout.
   */
  async tick(): Promise<void> {
    if (this.#halted) return;
    const startedAt = performance.now();
    const renewed = await this.#leases.renewAll();
    const still = new Set(renewed.map((l) => `${keyOf(l)}\0${l.epoch}`));
    for (const [key, held] of this.#held) {
      if (held.adoptedAt >= startedAt) continue;
      if (still.has(`${key}\0${held.epoch}`)) held.validUntil = startedAt + this.#ttlMs;
      else this.#held.delete(key);
    }
    await takeOverExpired(
      this.#leases,
      this.#logger,
      {
        message: "took over an expired transaction coordinator lease",
        key: (lease) => ({ transactionalId: lease.transactionalId }),
      },
      (lease, takenAt) => this.#adopt(lease, takenAt),
    );
    const now = this.#clock.now();
    const withWork = await this.#states.withWork();
    for (const row of withWork) {
      const lease = this.#live(row.tenantId, row.transactionalId);
      if (!lease || lease.epoch !== row.epoch) continue;
      if (BUSY.has(row.state)) this.#completeInBackground(lease, row);
      else if (row.state === "Ongoing" && row.abortRequestedAt !== null)
        await this.#timeOut(lease, row, "operator");
      else if (row.state === "Ongoing" && row.startedAt !== null && now >= row.startedAt + row.timeoutMs) {
        await this.#timeOut(lease, row, "timeout");
      }
    }
    await this.#releaseIdle(new Set(withWork.map(keyOf)), now);
  }

  /**
   * Lets go of the ids without an open transaction that no request needed for a lease TTL, as the
   * group coordinator lets idle groups go: a worker does not renew every id it was ever asked
   * about. The producer's next request is answered NOT_COORDINATOR and finds the id again.
   */
  async #releaseIdle(working: ReadonlySet<string>, now: number): Promise<void> {
    const idle: HeldTxnLease[] = [];
    for (const [key, held] of this.#held) {
      if (working.has(key) || this.#completing.has(key) || now - held.lastUsedAt < this.#ttlMs) continue;
      idle.push({ tenantId: held.tenantId, transactionalId: held.transactionalId, epoch: held.epoch });
      this.#held.delete(key);
    }
    if (idle.length > 0) await this.#leases.release(idle);
  }

  /** FindCoordinator key type 1: claims the id when free, else answers its live holder. */
  async find(tenantId: string, transactionalId: string): Promise<FindResult> {
    const self = this.#self();
    if (this.lease(tenantId, transactionalId)) return { errorCode: 0, broker: self };
    const startedAt = performance.now();
    const holder = await this.#leases.claimOrFind(tenantId, transactionalId);
    if (holder.ownerWorkerId === self.workerId && holder.live) {
      this.#adopt({ tenantId, transactionalId, epoch: holder.epoch }, startedAt);
      return { errorCode: 0, broker: self };
    }
    return holderAnswer(this.#catalog, holder, "The transaction coordinator");
  }

  /** The lease this worker holds on the id, or null (the request is answered NOT_COORDINATOR). */
  lease(tenantId: string, transactionalId: string): HeldTxnLease | null {
    const held = this.#held.get(keyOf({ tenantId, transactionalId }));
    if (!held || held.validUntil <= performance.now()) return null;
    held.lastUsedAt = this.#clock.now();
    return { tenantId, transactionalId, epoch: held.epoch };
  }

  /** The lease as `lease` answers it, for the coordinator's own work: looking is not use. */
  #live(tenantId: string, transactionalId: string): HeldTxnLease | null {
    const held = this.#held.get(keyOf({ tenantId, transactionalId }));
    if (!held || held.validUntil <= performance.now()) return null;
    return { tenantId, transactionalId, epoch: held.epoch };
  }

  /**
   * InitProducerId with a transactional id: the id's producer id with its epoch bumped (a fresh
   * producer id the first time, or once the epochs run out), fencing every older instance. An
   * open transaction is aborted first, under a bumped epoch, so the zombie's writes and its
   * EndTxn are refused; until that abort is complete the caller hears CONCURRENT_TRANSACTIONS.
   */
  async initProducerId(
    lease: HeldTxnLease,
    timeoutMs: number,
    given: { producerId: number; producerEpoch: number } | null,
  ): Promise<InitOutcome> {
    for (let round = 0; round < 2; round++) {
      const found = await this.#states.read(lease);
      if (!found) return { ok: false, errorCode: ErrorCode.NOT_COORDINATOR };
      const fresh =
        found.producerId < 0 || found.producerEpoch >= EPOCH_EXHAUSTED
          ? await this.#producerIds.issue(lease.tenantId)
          : null;
      const step = await this.#serially(lease, () =>
        this.#states.change(lease, (row): TxnChange<InitOutcome | "aborting"> => {
          if (given && (given.producerId !== row.producerId || given.producerEpoch !== row.producerEpoch)) {
            // KIP-360: a producer passing an id and epoch must be the current instance.
            return { result: { ok: false, errorCode: "fenced" } };
          }
          if (BUSY.has(row.state))
            return { result: { ok: false, errorCode: ErrorCode.CONCURRENT_TRANSACTIONS } };
          if (row.state === "Ongoing") {
            return {
              next: { state: "PrepareAbort", producerEpoch: row.producerEpoch + 1 },
              result: "aborting",
            };
          }
          const renewed =
            row.producerId < 0 || row.producerEpoch >= EPOCH_EXHAUSTED
              ? fresh
                ? { producerId: fresh.producerId, producerEpoch: fresh.producerEpoch }
                : null
              : { producerId: row.producerId, producerEpoch: row.producerEpoch + 1 };
          // The row changed between the read and the lock (another instance initialised): retry.
          if (!renewed) return { result: { ok: false, errorCode: ErrorCode.CONCURRENT_TRANSACTIONS } };
          return {
            next: {
              ...renewed,
              state: "Empty",
              timeoutMs,
              partitions: [],
              pendingOffsets: [],
              startedAt: null,
            },
            result: { ok: true, ...renewed },
          };
        }),
      );
      if (step !== "aborting") return step;
      this.#logger.info(
        { tenantId: lease.tenantId, transactionalId: lease.transactionalId },
        "a new producer instance fenced the open transaction: aborting it",
      );
      const done = await this.#completeWithin(lease);
      if (!done) break;
    }
    return { ok: false, errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
  }

  /** AddPartitionsToTxn (and AddOffsetsToTxn with no partition): the transaction is open from here. */
  async addPartitions(
    lease: HeldTxnLease,
    producerId: number,
    producerEpoch: number,
    partitions: readonly TxnPartition[],
  ): Promise<TxnOutcome> {
    return this.#serially(lease, () =>
      this.#states.change(lease, (row): TxnChange<TxnOutcome> => {
        const refused = producerRefusal(row, producerId, producerEpoch);
        if (refused !== 0) return { result: refused };
        if (BUSY.has(row.state)) return { result: ErrorCode.CONCURRENT_TRANSACTIONS };
        const known = new Set(row.partitions.map((p) => p.partitionId));
        const added = partitions.filter((p) => !known.has(p.partitionId));
        if (row.state === "Ongoing" && added.length === 0) return { result: 0 };
        const ongoing = row.state === "Ongoing";
        return {
          next: {
            state: "Ongoing",
            partitions: [...(ongoing ? row.partitions : []), ...added],
            ...(ongoing ? {} : { pendingOffsets: [], startedAt: this.#clock.now() }),
          },
          result: 0,
        };
      }),
    );
  }

  /**
   * EndTxn: the decision made durable (Prepare*), the markers written, the outcome recorded. A
   * retry of an EndTxn that completed gets the same answer.
   */
  async endTxn(
    lease: HeldTxnLease,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
  ): Promise<TxnOutcome> {
    const prepare = commit ? "PrepareCommit" : "PrepareAbort";
    const complete = commit ? "CompleteCommit" : "CompleteAbort";
    const outcome = await this.#serially(lease, () =>
      this.#states.change(lease, (row): TxnChange<TxnOutcome | "prepared"> => {
        const refused = producerRefusal(row, producerId, producerEpoch);
        if (refused !== 0) return { result: refused };
        if (row.state === complete) return { result: 0 };
        if (row.state === prepare) return { result: ErrorCode.CONCURRENT_TRANSACTIONS };
        if (row.state !== "Ongoing") return { result: ErrorCode.INVALID_TXN_STATE };
        return { next: { state: prepare }, result: "prepared" };
      }),
    );
    if (outcome !== "prepared") return outcome;
    this.#fault?.("after-txn-prepare");
    await this.#completeWithin(lease);
    return 0;
  }

  /** The open transactions this worker coordinates (the Prometheus gauges). */
  async openTransactions(): Promise<{ tenantId: string; startedAt: number | null }[]> {
    const rows = await this.#states.withWork();
    return rows
      .filter((r) => this.#live(r.tenantId, r.transactionalId)?.epoch === r.epoch)
      .map((r) => ({ tenantId: r.tenantId, startedAt: r.startedAt }));
  }

  /** Aborts the open transaction `seen` under a bumped epoch: its timeout passed, or an operator asked. */
  async #timeOut(lease: HeldTxnLease, seen: TxnRecord, why: "timeout" | "operator"): Promise<void> {
    const aborted = await this.#serially(lease, () =>
      this.#states.change(lease, (row): TxnChange<boolean> => {
        // Only the transaction that timed out: a new one begun meanwhile has its own clock.
        if (
          row.state !== "Ongoing" ||
          row.startedAt !== seen.startedAt ||
          row.producerId !== seen.producerId
        ) {
          return { result: false };
        }
        return { next: { state: "PrepareAbort", producerEpoch: row.producerEpoch + 1 }, result: true };
      }),
    );
    if (!aborted) return;
    this.#logger.info(
      { tenantId: lease.tenantId, transactionalId: lease.transactionalId, timeoutMs: seen.timeoutMs, why },
      why === "timeout"
        ? "aborting a transaction past its timeout"
        : "aborting a transaction an operator aborted",
    );
    await this.#completeWithin(lease);
  }

  /** Starts (or joins) the completion and waits for it up to `markerWaitMs`: true once it is done. */
  async #completeWithin(lease: HeldTxnLease): Promise<boolean> {
    const row = await this.#states.read(lease);
    if (!row) return false;
    if (!BUSY.has(row.state)) return true;
    const completion = this.#completeInBackground(lease, row);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#markerWaitMs);
    });
    try {
      return await Promise.race([completion.then(() => true), waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  #completeInBackground(lease: HeldTxnLease, row: TxnRecord): Promise<void> {
    const key = keyOf(lease);
    const running = this.#completing.get(key);
    if (running) return running;
    const completion = this.#complete(lease, row)
      .catch((error: unknown) => {
        if (error instanceof TxnLeaseMovedError) return;
        this.#logger.warn(
          { err: error, tenantId: lease.tenantId, transactionalId: lease.transactionalId },
          "completing a transaction failed; the next tick retries",
        );
      })
      .finally(() => this.#completing.delete(key));
    this.#completing.set(key, completion);
    return completion;
  }

  /** Markers to every partition, then Complete*: idempotent, so a retry or a new owner may run it again. */
  async #complete(lease: HeldTxnLease, row: TxnRecord): Promise<void> {
    const commit = row.state === "PrepareCommit";
    const marker: TxnMarkerRequest = {
      producerId: row.producerId,
      producerEpoch: row.producerEpoch,
      commit,
      coordinatorEpoch: lease.epoch,
    };
    await Promise.all(row.partitions.map((p) => this.#writeMarker(lease, p, marker)));
    await this.#serially(lease, () =>
      this.#states.change(lease, (now): TxnChange<void> => {
        if (now.state !== row.state || now.producerEpoch !== row.producerEpoch) return { result: undefined };
        return {
          next: {
            state: commit ? "CompleteCommit" : "CompleteAbort",
            partitions: [],
            pendingOffsets: [],
            startedAt: null,
          },
          result: undefined,
        };
      }),
    );
  }

  async #writeMarker(lease: HeldTxnLease, partition: TxnPartition, marker: TxnMarkerRequest): Promise<void> {
    for (let delay = MARKER_RETRY_MIN_MS; ; delay = Math.min(delay * 2, MARKER_RETRY_MAX_MS)) {
      if (this.#halted || !this.#live(lease.tenantId, lease.transactionalId))
        throw new TxnLeaseMovedError(lease);
      try {
        await this.#markers.write(partition.partitionId, marker);
        return;
      } catch (error) {
        // A partition deleted since has nothing left to end; a newer epoch there already ended it.
        if (
          error instanceof DataPlaneError &&
          (error.code === "PARTITION_NOT_FOUND" || error.code === "INVALID_PRODUCER_EPOCH")
        ) {
          return;
        }
        // A newer coordinator of this id wrote there already: this one is deposed.
        if (error instanceof DataPlaneError && error.code === "TRANSACTION_COORDINATOR_FENCED") {
          throw new TxnLeaseMovedError(lease);
        }
        this.#logger.info(
          { err: error, partitionId: partition.partitionId, transactionalId: lease.transactionalId },
          "transaction marker not written yet; retrying",
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  #serially<T>(lease: HeldTxnLease, run: () => Promise<T>): Promise<T> {
    const key = keyOf(lease);
    const before = this.#serial.get(key) ?? Promise.resolve();
    const mine = before.then(run, run);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#serial.set(key, settled);
    void settled.then(() => {
      if (this.#serial.get(key) === settled) this.#serial.delete(key);
    });
    return mine;
  }

  #adopt(lease: HeldTxnLease, startedAt: number): void {
    this.#held.set(keyOf(lease), {
      tenantId: lease.tenantId,
      transactionalId: lease.transactionalId,
      epoch: lease.epoch,
      validUntil: startedAt + this.#ttlMs,
      adoptedAt: performance.now(),
      lastUsedAt: this.#clock.now(),
    });
  }
}

/** Kafka's checks of a request's producer against the id's: the id it maps to, then the epoch. */
function producerRefusal(row: TxnRecord, producerId: number, producerEpoch: number): TxnOutcome {
  if (row.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (row.producerEpoch !== producerEpoch) return "fenced";
  return 0;
}

function keyOf(lease: { tenantId: string; transactionalId: string }): string {
  return `${lease.tenantId}\0${lease.transactionalId}`;
}
