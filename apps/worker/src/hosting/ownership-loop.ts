import type { Clock } from "@lastword/logstore";
import type { Logger } from "../logger";
import { freshClaimQuota, shouldShed } from "../ownership/fair-share";
import type { LeaseRepository } from "../ownership/lease.repository";
import { renewIntervalMs } from "../ownership/lease-holder";
import type { WorkerRegistry } from "../ownership/worker-registry";
import type { PartitionHost } from "./partition-host";

export interface OwnershipOptions {
  leases: LeaseRepository;
  registry: WorkerRegistry;
  host: PartitionHost;
  logger: Logger;
  address: string;
  leaseTtlMs: number;
  /** How often unowned partitions are looked for; bounds how fast a new topic becomes writable. */
  claimIntervalMs: number;
  maxClaimsPerTick: number;
  /**
   * Extra housekeeping run every `housekeepingIntervalMs` inside the same loop (orphaned partition
   * files, expired Kafka producer ids and client sightings).
   */
  housekeeping?: () => Promise<void>;
  housekeepingIntervalMs?: number;
  /**
   * Whether to read peers' sessions (worker-session.ts) this tick: false while our own is young, so
   * that after a database restart, when every session is reconnecting, nobody takes the partitions
   * of peers that are merely slower to reconnect. Always true when not given.
   */
  trustSessions?: () => boolean;
  /** Called with how long it had been when a renewal begins after one or more were missed (a metric). */
  onRenewalLate?: (sinceLastMs: number) => void;
  /**
   * What the housekeeping cadence reads: the worker's clock, as the expiries it runs do, so a test
   * that moves the clock past them sees the next tick run them.
   */
  clock: Clock;
}

/**
 * One sequential loop: every tick it claims unowned or expired partitions (up to its fair share,
 * or any that waited longer than half a TTL), and every TTL/3 it heartbeats and renews its leases,
 * closing at once any partition whose lease is gone. Ticks never overlap. Renewal and the lease
 * deadlines it hands the host run on the monotonic clock, not the injected one: leases expire in
 * real time (on Postgres's clock), so a test clock held still must not stop the renewals.
 */
export class OwnershipLoop {
  readonly #o: OwnershipOptions;
  readonly #renewIntervalMs: number;
  #lastRenewAt = Number.NEGATIVE_INFINITY;
  #lastHousekeepingAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #current: Promise<void> = Promise.resolve();
  #stopped = false;
  #failing = false;

  constructor(options: OwnershipOptions) {
    this.#o = options;
    this.#renewIntervalMs = renewIntervalMs(options.leaseTtlMs);
  }

  start(): void {
    this.#schedule(0);
  }

  /**
   * Runs a tick as soon as the one under way (if any) ends, then keeps the usual cadence: a peer
   * released partitions (worker-session.ts), so claiming them need not wait for the next interval.
   */
  wake(): void {
    this.#schedule(0);
  }

  /** Runs one tick now (tests, and the first claim at boot). */
  tick(): Promise<void> {
    this.#current = this.#current.then(() => this.#tick());
    return this.#current;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#current;
  }

  /** One timer at a time: a wake() replaces the pending one, and a tick only re-arms when none is pending. */
  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.tick().finally(() => {
        if (this.#timer === null) this.#schedule(this.#o.claimIntervalMs);
      });
    }, delayMs);
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    try {
      if (performance.now() - this.#lastRenewAt >= this.#renewIntervalMs) await this.#renew();
      await this.#claim();
      await this.#housekeep();
      if (this.#failing) this.#o.logger.info("ownership tick succeeded again");
      this.#failing = false;
    } catch (error) {
      // Mostly Postgres unreachable: held partitions keep serving (storage fencing), claims wait.
      this.#o.host.databaseFailed();
      if (!this.#failing) this.#o.logger.warn({ err: error }, "ownership tick failed; retrying every tick");
      this.#failing = true;
    }
  }

  async #renew(): Promise<void> {
    const { registry, leases, host, address, leaseTtlMs, logger } = this.#o;
    const startedAt = performance.now();
    if (!(await registry.heartbeat())) await registry.register(address);
    const renewed = await leases.renewAll();
    // Renewals every TTL/3 leave room for one to be missed; with a second the leases lapse. Said
    // once per late renewal that succeeded (not per failed attempt during an outage).
    const sinceLastMs = startedAt - this.#lastRenewAt;
    if (Number.isFinite(sinceLastMs) && sinceLastMs >= 2 * this.#renewIntervalMs) {
      logger.warn(
        { sinceLastMs: Math.round(sinceLastMs), leaseTtlMs },
        "lease renewal late: at least one renewal was missed",
      );
      this.#o.onRenewalLate?.(sinceLastMs);
    }
    this.#lastRenewAt = startedAt;
    await host.applyRenewal(renewed, startedAt + leaseTtlMs);
  }

  async #claim(): Promise<void> {
    const { leases, host, logger, leaseTtlMs, maxClaimsPerTick } = this.#o;
    const sessions = this.#o.trustSessions?.() ?? true;
    const snapshot = await leases.loadSnapshot(sessions);
    if (shouldShed(snapshot)) await this.#shedOne();
    if (snapshot.claimable === 0) return;
    const startedAt = performance.now();
    const overdue = await leases.claim(maxClaimsPerTick, Math.floor(leaseTtlMs / 2), sessions);
    const quota = freshClaimQuota(
      { ...snapshot, ownedByMe: snapshot.ownedByMe + overdue.length },
      maxClaimsPerTick - overdue.length,
    );
    const fresh = await leases.claim(quota, undefined, sessions);
    for (const claim of [...overdue, ...fresh]) {
      host.adopt(claim, startedAt + leaseTtlMs);
      logger.info({ partitionId: claim.partitionId, epoch: claim.epoch }, "partition claimed");
    }
  }

  /** Hands one open partition back (log closed first, then the lease released at our epoch). */
  async #shedOne(): Promise<void> {
    const { host, leases, logger } = this.#o;
    const slot = host.slots().find((candidate) => candidate.state === "open");
    if (!slot) return;
    await host.drop(slot.partitionId, "released");
    await leases.release(slot.partitionId, slot.epoch);
    logger.info({ partitionId: slot.partitionId, epoch: slot.epoch }, "partition handed back for balance");
  }

  async #housekeep(): Promise<void> {
    const { housekeeping, housekeepingIntervalMs = 30_000 } = this.#o;
    const now = this.#o.clock.now();
    if (!housekeeping || now - this.#lastHousekeepingAt < housekeepingIntervalMs) return;
    this.#lastHousekeepingAt = now;
    await housekeeping();
  }
}
