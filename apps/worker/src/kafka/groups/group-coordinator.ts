import { ErrorCode } from "@lastword/kafka-protocol";
import type { Clock } from "@lastword/logstore";
import type { Logger } from "../../logger";
import { renewalTimer } from "../../ownership/lease-holder";
import { type FindResult, holderAnswer } from "../coordinator-answer";
import { takeOverExpired } from "../coordinator-takeover";
import type { KafkaBroker, KafkaCatalog } from "../kafka-catalog";
import type { AdoptedGroupLease, GroupLeaseRepository, HeldGroupLease } from "./group-lease.repository";
import { GroupState, type GroupTimings } from "./group-state";

export const DEFAULT_GROUP_TIMINGS: GroupTimings = {
  initialRebalanceDelayMs: 0,
  minSessionTimeoutMs: 1_000,
  maxSessionTimeoutMs: 1_800_000,
};

interface Held {
  epoch: number;
  /**
   * Local monotonic deadline (performance.now, as a partition slot's): past it this worker stops
   * serving the group even before renewal fails. A bound on a lease the database's clock times
   * must not follow the injected clock, which a test may hold still or move by days.
   */
  validUntil: number;
  /** When the claim had committed (monotonic): a renewal that started before this may not have seen it. */
  adoptedAt: number;
  /** The last generation recorded on the lease row: a new membership continues after it. */
  generation: number;
  group: GroupState | null;
  /** The last request that needed this group (find, join, commit, admin), on the clock: idleness is measured from it. */
  lastUsedAt: number;
}

/**
 * This worker's share of the fleet's group coordination: which (tenant, group) leases it holds
 * (claimed through FindCoordinator, renewed every third of the lease TTL, released on a graceful
 * stop) and the in-memory membership of those groups. A group whose lease is lost is killed:
 * waiting members are answered NOT_COORDINATOR, look the coordinator up again and rejoin there.
 *
 * Each group's generations are recorded on its lease row before members hear of them, and a new
 * membership (after a takeover, a lost lease or a deleted group) starts after the last one, so a
 * generation number names one assignment across the fleet.
 *
 * A group with no members that nobody asked about for a lease TTL (on the injected clock) is let
 * go (its lease released), and each tick deletes the KafkaGroup rows the lease repository finds
 * safe to forget (lapsed, no committed offsets, no member left that could hold a generation): a
 * FindCoordinator for a group id never used leaves no row behind. A group with offsets keeps its
 * row (unowned until a client asks again), so its epoch and generation keep growing.
 */
export class GroupCoordinator {
  readonly #leases: GroupLeaseRepository;
  readonly #catalog: KafkaCatalog;
  readonly #logger: Logger;
  readonly #ttlMs: number;
  readonly timings: GroupTimings;
  readonly #self: () => KafkaBroker;
  readonly #clock: Clock;
  /** Keyed by tenant id then group id: group ids are tenant-scoped. */
  readonly #held = new Map<string, Map<string, Held>>();
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: {
    leases: GroupLeaseRepository;
    catalog: KafkaCatalog;
    logger: Logger;
    leaseTtlMs: number;
    timings: GroupTimings;
    self: () => KafkaBroker;
    /** Session and rebalance deadlines and idleness are read from it. */
    clock: Clock;
  }) {
    this.#leases = deps.leases;
    this.#catalog = deps.catalog;
    this.#logger = deps.logger;
    this.#ttlMs = deps.leaseTtlMs;
    this.timings = deps.timings;
    this.#self = deps.self;
    this.#clock = deps.clock;
  }

  start(): void {
    this.#timer = renewalTimer(this.#ttlMs, () => this.renew(), this.#logger, "group lease renewal");
  }

  /** Stops renewing and forgets every group (kill and graceful stop). */
  halt(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const byGroup of this.#held.values()) for (const h of byGroup.values()) this.#killAll(h);
    this.#held.clear();
  }

  async stop(): Promise<void> {
    this.halt();
    await this.#leases.releaseAll();
  }

  /**
   * One tick: let idle groups go, renew what this worker holds, delete lapsed rows without offsets,
   * then take over leases dead holders left expired.
   */
  async renew(): Promise<void> {
    await this.#releaseIdle();
    const startedAt = performance.now();
    const renewed = await this.#leases.renewAll();
    const still = new Set(renewed.map((r) => `${r.tenantId}\0${r.groupId}\0${r.epoch}`));
    for (const [tenantId, byGroup] of this.#held) {
      for (const [groupId, held] of byGroup) {
        if (held.adoptedAt >= startedAt) continue;
        if (still.has(`${tenantId}\0${groupId}\0${held.epoch}`)) {
          held.validUntil = startedAt + this.#ttlMs;
        } else {
          this.#logger.info({ tenantId, groupId }, "group coordinator lease lost");
          this.#killAll(held);
          byGroup.delete(groupId);
        }
      }
    }
    const deleted = await this.#leases.deleteLapsedWithoutOffsets(this.timings.maxSessionTimeoutMs);
    if (deleted > 0) this.#logger.debug({ deleted }, "deleted lapsed group leases without offsets");
    await takeOverExpired(
      this.#leases,
      this.#logger,
      { message: "took over an expired group lease", key: (lease) => ({ groupId: lease.groupId }) },
      (lease, takenAt) => this.#adopt(lease, takenAt),
    );
  }

  /** FindCoordinator for one group id: claims it when free, else answers the live holder. */
  async find(tenantId: string, groupId: string): Promise<FindResult> {
    const self = this.#self();
    if (this.#heldLive(tenantId, groupId)) return { errorCode: 0, broker: self };
    const startedAt = performance.now();
    const holder = await this.#leases.claimOrFind(tenantId, groupId);
    if (holder.ownerWorkerId === self.workerId && holder.live) {
      this.#adopt({ tenantId, groupId, epoch: holder.epoch, generation: holder.generation }, startedAt);
      return { errorCode: 0, broker: self };
    }
    return holderAnswer(this.#catalog, holder, "The group's coordinator");
  }

  /** The group's state when this worker coordinates it, else null (answer NOT_COORDINATOR). */
  group(tenantId: string, groupId: string): GroupState | null {
    const held = this.#heldLive(tenantId, groupId);
    if (!held) return null;
    if (!held.group || held.group.state === "Dead") held.group = this.#membership(tenantId, groupId, held);
    return held.group;
  }

  /** Whether this worker coordinates the group (for offset and admin requests). */
  coordinates(tenantId: string, groupId: string): boolean {
    return this.#heldLive(tenantId, groupId) !== null;
  }

  /**
   * The lease this worker holds on the group, when it coordinates it: a write to the group's
   * offsets is made only while the database still names this worker at this epoch.
   */
  lease(tenantId: string, groupId: string): HeldGroupLease | null {
    const held = this.#heldLive(tenantId, groupId);
    return held ? { tenantId, groupId, epoch: held.epoch } : null;
  }

  /** The group's in-memory state if it has any (DescribeGroups, ListGroups), without creating one. */
  existing(tenantId: string, groupId: string): GroupState | null {
    const group = this.#heldLive(tenantId, groupId)?.group;
    return group && group.state !== "Dead" ? group : null;
  }

  /** Forgets a deleted group's membership (DeleteGroups). */
  forget(tenantId: string, groupId: string): void {
    const held = this.#heldLive(tenantId, groupId);
    if (!held) return;
    held.group?.kill(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    held.group = null;
  }

  /** Group ids of the tenant this worker coordinates. */
  heldGroupIds(tenantId: string): string[] {
    const byGroup = this.#held.get(tenantId);
    if (!byGroup) return [];
    const now = performance.now();
    return [...byGroup].filter(([, h]) => h.validUntil > now).map(([id]) => id);
  }

  /**
   * The tenant's groups this worker coordinates that have a membership in memory (the console's
   * view). Looking does not count as use: a console left open must not keep an idle group held.
   */
  groupsOf(tenantId: string): GroupState[] {
    const byGroup = this.#held.get(tenantId);
    if (!byGroup) return [];
    const now = performance.now();
    const groups: GroupState[] = [];
    for (const held of byGroup.values()) {
      if (held.validUntil > now && held.group && held.group.state !== "Dead") groups.push(held.group);
    }
    return groups;
  }

  #heldLive(tenantId: string, groupId: string): Held | null {
    const held = this.#held.get(tenantId)?.get(groupId);
    if (!held || held.validUntil <= performance.now()) return null;
    held.lastUsedAt = this.#clock.now();
    return held;
  }

  /** A new in-memory membership, numbering after the group's last recorded generation. */
  #membership(tenantId: string, groupId: string, held: Held): GroupState {
    const lease = { tenantId, groupId, epoch: held.epoch };
    return new GroupState(groupId, this.timings, {
      clock: this.#clock,
      generationId: held.generation,
      recordGeneration: async (generation) => {
        try {
          const recorded = await this.#leases.recordGeneration(lease, generation);
          if (recorded) held.generation = Math.max(held.generation, generation);
          else
            this.#logger.info({ tenantId, groupId }, "group lease moved before its generation was recorded");
          return recorded;
        } catch (error) {
          this.#logger.warn({ err: error, tenantId, groupId }, "recording a group generation failed");
          return false;
        }
      },
    });
  }

  /** Releases the leases of groups without members that no request needed for a lease TTL. */
  async #releaseIdle(): Promise<void> {
    const now = this.#clock.now();
    const idle: HeldGroupLease[] = [];
    for (const [tenantId, byGroup] of this.#held) {
      for (const [groupId, held] of byGroup) {
        if (now - held.lastUsedAt < this.#ttlMs || (held.group !== null && !held.group.idle)) continue;
        this.#killAll(held);
        byGroup.delete(groupId);
        idle.push({ tenantId, groupId, epoch: held.epoch });
      }
    }
    if (idle.length > 0) await this.#leases.release(idle);
  }

  #adopt(lease: AdoptedGroupLease, startedAt: number): void {
    const { tenantId, groupId, epoch } = lease;
    const byGroup = this.#held.get(tenantId) ?? new Map<string, Held>();
    this.#held.set(tenantId, byGroup);
    const old = byGroup.get(groupId);
    if (old && old.epoch === epoch) {
      old.validUntil = startedAt + this.#ttlMs;
      return;
    }
    if (old) this.#killAll(old);
    byGroup.set(groupId, {
      epoch,
      validUntil: startedAt + this.#ttlMs,
      adoptedAt: performance.now(),
      generation: lease.generation,
      group: null,
      lastUsedAt: this.#clock.now(),
    });
  }

  #killAll(held: Held): void {
    held.group?.kill(ErrorCode.NOT_COORDINATOR);
    held.group = null;
  }
}
