import assert from "node:assert/strict";
import type { PrismaClient } from "@lastword/db";
import {
  isBehindTombstone,
  isTombstoneScanned,
  type MissedTombstone,
  SCANNED_TOMBSTONE_STATUSES,
  type ScanEvidence,
  type ScannedTombstoneStatus,
  storedTombstoneStatus,
  TOMBSTONE_SCANS,
  toStored,
  WRITTEN_TOMBSTONE_STATUS,
} from "@lastword/erasure";
import type { PassOutcome } from "../cleaner/cleaner-pass";
import type { ObjectEvidenceScanner } from "../durability/object-evidence";
import type { HostedLog } from "../hosting/hosted-log";
import type { PartitionHost } from "../hosting/partition-host";
import type { PartitionSlot } from "../hosting/partition-slot";
import type { Logger } from "../logger";
import { scanForKey } from "./erasure-evidence";
import { advanceErasureRequests } from "./erasure-progress";

export interface ErasureGuardOptions {
  prisma: PrismaClient;
  host: PartitionHost;
  tickMs: number;
  /** When the last pass of each partition finished (epoch ms), from the cleaner's job processor. */
  lastCleanAt: ReadonlyMap<string, number>;
  /** How many passes of each partition have completed, from the same processor. */
  completedPasses: ReadonlyMap<string, number>;
  /** Enqueues a forced pass (the cleaner's "requested" path, fenced and recorded like any pass). */
  requestClean(partitionId: string, epoch: number): Promise<void>;
  logger: Logger;
  /** With an object store: the bucket's side of each proof (durability/object-evidence.ts). */
  objects?: ObjectEvidenceScanner;
  /**
   * With key filters: instead of a pass over the whole partition, rewrite only the segments below
   * the tombstone whose filter may hold the key (the log store's targeted rewrite).
   */
  targeted?: (slot: PartitionSlot, log: HostedLog, key: Buffer, belowOffset: number) => Promise<PassOutcome>;
}

/** A proof held up by something a pass cannot change (retired files, objects not deleted yet) is tried again this often. */
const BLOCKED_RESCAN_MS = 10_000;

interface PendingTombstone {
  id: string;
  organizationId: string;
  topicId: string;
  partitionIndex: number;
  partitionId: string;
  subjectKey: string;
  offset: bigint;
  writtenAt: Date;
  deadlineAt: Date;
  status: ScannedTombstoneStatus;
}

/**
 * The time a pass may still need once it is due: two ticks (to notice, then to enqueue) and a
 * pass. The deadline guarantee subtracts it so the pass that purges starts early enough.
 */
export function erasureSafetyMarginMs(tickMs: number, passEstimateMs = 1_000): number {
  return 2 * tickMs + passEstimateMs;
}

/**
 * Kafka's max.compaction.lag.ms, tightened for a partition holding a pending erasure tombstone:
 * min(topic setting, deadline − now − margin). Never negative: at or past the margin it is due now.
 */
export function effectiveMaxCompactionLagMs(
  maxCompactionLagMs: number,
  deadlineAtMs: number,
  nowMs: number,
  marginMs: number,
): number {
  return Math.min(maxCompactionLagMs, Math.max(0, deadlineAtMs - nowMs - marginMs));
}

/**
 * The deadline guarantee on this worker, run each scheduler tick: for every pending erasure
 * tombstone in a partition it owns, (1) verify — a scan proves no earlier record of the key is
 * left (stored as purge evidence); (2) otherwise, once the tombstone is older than the effective
 * max compaction lag, roll the active segment if it holds the tombstone and request a forced pass;
 * (3) after the purge, a second scan records when the tombstone itself is gone (the cleaner makes a
 * passed delete horizon due by itself, so this needs no new writes); (4) the requests with
 * tombstones here advance their state from that evidence (erasure-progress.ts), with nobody reading.
 */
export class ErasureGuard {
  readonly #o: ErasureGuardOptions;
  /**
   * The partition's completed passes when each tombstone was last scanned: a rescan waits for a
   * pass after it (counted, so a pass that ends in the scan's millisecond still counts as after).
   */
  readonly #scannedAfterPasses = new Map<string, number>();
  /** Tombstones whose last scan found nothing live but could not prove it yet: when to scan again. */
  readonly #blockedUntil = new Map<string, number>();
  /** Partitions with a targeted rewrite running (it is not waited for in the tick). */
  readonly #rewriting = new Set<string>();
  /** Tombstones a targeted rewrite did not clear: they get a whole pass instead. */
  readonly #wholePass = new Set<string>();

  constructor(options: ErasureGuardOptions) {
    this.#o = options;
  }

  async tick(nowMs: number): Promise<void> {
    const open = this.#o.host.slots().filter((slot) => slot.state === "open");
    if (open.length === 0) return;
    await this.#guardAll(open, nowMs);
    await advanceErasureRequests(
      this.#o.prisma,
      open.map((slot) => slot.partitionId),
      nowMs,
    );
  }

  async #guardAll(open: PartitionSlot[], nowMs: number): Promise<void> {
    const rows = await this.#o.prisma.erasureTombstone.findMany({
      where: {
        partitionId: { in: open.map((slot) => slot.partitionId) },
        status: { in: SCANNED_TOMBSTONE_STATUSES.map(toStored) },
      },
      select: {
        id: true,
        organizationId: true,
        topicId: true,
        partitionIndex: true,
        partitionId: true,
        subjectKey: true,
        offset: true,
        writtenAt: true,
        deadlineAt: true,
        status: true,
      },
      orderBy: { offset: "asc" },
    });
    const pending = rows.map((row): PendingTombstone => {
      const status = storedTombstoneStatus(row.status);
      assert(isTombstoneScanned(status), `tombstone ${row.id} is ${status}, not one the guard scans`);
      return { ...row, status };
    });
    for (const slot of open) {
      const mine = pending.filter((row) => row.partitionId === slot.partitionId);
      if (mine.length === 0) continue;
      try {
        await slot.use((log) => this.#guard(slot, log, mine, nowMs), "background");
      } catch (error) {
        this.#o.logger.warn(
          { partitionId: slot.partitionId, err: error },
          "erasure guard skipped a partition",
        );
      }
    }
  }

  async #guard(slot: PartitionSlot, log: HostedLog, rows: PendingTombstone[], nowMs: number): Promise<void> {
    const activeBase =
      (await log.segments()).find((segment) => segment.active)?.baseOffset ?? log.logEndOffset;
    const passFor: PendingTombstone[] = [];
    for (const row of rows) {
      if (!this.#scanDue(slot.partitionId, row.id, nowMs)) {
        if (
          !this.#blockedUntil.has(row.id) &&
          this.#needsPass(slot.partitionId, log, row, activeBase, nowMs)
        ) {
          passFor.push(row);
        }
        continue;
      }
      // Counted before the scan reads: a pass ending while it reads still calls for a rescan.
      const passesBefore = this.#o.completedPasses.get(slot.partitionId) ?? 0;
      let scanned = await this.#scan(slot, log, row, nowMs);
      if (scanned.retiredFiles) {
        // Old bytes in files a pass retired: nothing reads them any more, so they go now.
        log.deleteRetiredFiles();
        scanned = await this.#scan(slot, log, row, nowMs);
      }
      const { evidence, blockedBy } = scanned;
      this.#scannedAfterPasses.set(row.id, passesBefore);
      this.#blockedUntil.delete(row.id);
      if (evidence.result === "absent") {
        await this.#record(row, evidence, new Date(nowMs));
      } else if (blockedBy !== null) {
        this.#blockedUntil.set(row.id, nowMs + BLOCKED_RESCAN_MS);
        this.#o.logger.info(
          { partitionId: slot.partitionId, tombstone: row.id, blockedBy },
          "erasure proof waits",
        );
      } else if (this.#needsPass(slot.partitionId, log, row, activeBase, nowMs)) {
        passFor.push(row);
      }
    }
    if (passFor.length === 0) return;
    // The active segment is never cleaned: roll it when a pending tombstone sits in it.
    const inActive = rows.some((row) => Number(row.offset) >= activeBase);
    if (inActive && this.#o.host.leaseFresh(slot)) await log.roll();
    const targeted = this.#o.targeted;
    const rewrite = passFor.filter(
      (row) => row.status === WRITTEN_TOMBSTONE_STATUS && !this.#wholePass.has(row.id),
    );
    if (targeted && rewrite.length === passFor.length) {
      if (!this.#rewriting.has(slot.partitionId)) this.#rewrite(slot, log, rewrite, targeted);
    } else {
      await this.#o.requestClean(slot.partitionId, slot.epoch);
    }
    await this.#o.prisma.erasureTombstone.updateMany({
      where: {
        partitionId: slot.partitionId,
        status: toStored(WRITTEN_TOMBSTONE_STATUS),
        passRequestedAt: null,
      },
      data: { passRequestedAt: new Date(nowMs) },
    });
  }

  /**
   * Targeted rewrites for `rows`, one tombstone after another, in the background: a rewrite that
   * changed nothing (the key's old records lie where no filter led) leaves its tombstone to a
   * whole pass next time. A rescan follows each (the rewrite counts as a pass).
   */
  #rewrite(
    slot: PartitionSlot,
    log: HostedLog,
    rows: readonly PendingTombstone[],
    targeted: NonNullable<ErasureGuardOptions["targeted"]>,
  ): void {
    this.#rewriting.add(slot.partitionId);
    void (async () => {
      for (const row of rows) {
        const outcome = await targeted(slot, log, Buffer.from(row.subjectKey, "base64"), Number(row.offset));
        if (outcome !== "completed") this.#wholePass.add(row.id);
      }
    })()
      .catch((error: unknown) =>
        this.#o.logger.warn({ partitionId: slot.partitionId, err: error }, "targeted rewrite failed"),
      )
      .finally(() => this.#rewriting.delete(slot.partitionId));
  }

  /**
   * Unpurged: once the effective max lag is reached. Purged but still present: the tombstone's
   * delete horizon only starts when a pass first cleans it, so a tombstone still in the active
   * segment, or written after the partition's last pass (e.g. verified at once because nothing
   * lay beneath it), asks for that pass — otherwise an idle partition would keep it forever.
   */
  #needsPass(
    partitionId: string,
    log: HostedLog,
    row: PendingTombstone,
    activeBase: number,
    nowMs: number,
  ): boolean {
    if (row.status === WRITTEN_TOMBSTONE_STATUS) return this.#due(log, row, nowMs);
    const lastPassAt = this.#o.lastCleanAt.get(partitionId) ?? 0;
    return Number(row.offset) >= activeBase || lastPassAt < row.writtenAt.getTime();
  }

  /** The partition's files, and with an object store its objects, scanned for the tombstone's key. */
  #scan(slot: PartitionSlot, log: HostedLog, row: PendingTombstone, nowMs: number) {
    const key = Buffer.from(row.subjectKey, "base64");
    const now = new Date(nowMs);
    const { objects } = this.#o;
    return scanForKey({
      log,
      dir: slot.dir,
      key,
      belowOffset: TOMBSTONE_SCANS[row.status].scan === "purge" ? Number(row.offset) : null,
      now,
      ...(objects && { objects: (below) => objects.scan(slot.partitionId, key, below, row.writtenAt, now) }),
    });
  }

  /**
   * A first scan always; later ones after a pass that may have changed the files, or once a proof
   * held up by what no pass changes may have cleared.
   */
  #scanDue(partitionId: string, rowId: string, nowMs: number): boolean {
    const scannedAfter = this.#scannedAfterPasses.get(rowId);
    if (scannedAfter === undefined) return true;
    const blockedUntil = this.#blockedUntil.get(rowId);
    if (blockedUntil !== undefined && nowMs >= blockedUntil) return true;
    return (this.#o.completedPasses.get(partitionId) ?? 0) > scannedAfter;
  }

  #due(log: HostedLog, row: PendingTombstone, nowMs: number): boolean {
    const margin = erasureSafetyMarginMs(this.#o.tickMs);
    const lag = effectiveMaxCompactionLagMs(
      log.config.maxCompactionLagMs,
      row.deadlineAt.getTime(),
      nowMs,
      margin,
    );
    return nowMs - row.writtenAt.getTime() >= lag;
  }

  /**
   * The scan proved the tombstone's next step: store the proof and move it on (only from where it
   * was). With the expiry proof go the groups still behind the tombstone: once it is gone they can
   * no longer read the delete, and the request keeps them flagged after it closes.
   */
  async #record(row: PendingTombstone, evidence: ScanEvidence, at: Date) {
    const { scan, next } = TOMBSTONE_SCANS[row.status];
    const proof =
      scan === "purge"
        ? { purgedAt: at, purgeEvidence: evidence }
        : { expiredAt: at, expiryEvidence: evidence, missedBy: await this.#groupsBehind(row) };
    return this.#o.prisma.erasureTombstone.updateMany({
      where: { id: row.id, status: toStored(row.status) },
      data: { status: toStored(next), ...proof },
    });
  }

  async #groupsBehind(row: PendingTombstone): Promise<MissedTombstone[]> {
    const offsets = await this.#o.prisma.consumerGroupOffset.findMany({
      where: {
        topicId: row.topicId,
        partitionIndex: row.partitionIndex,
        group: { organizationId: row.organizationId },
      },
      select: { offset: true, group: { select: { name: true } } },
      orderBy: { group: { name: "asc" } },
    });
    return offsets
      .filter((o) => isBehindTombstone(o.offset, row.offset))
      .map((o) => ({ group: o.group.name, committedOffset: Number(o.offset) }));
  }
}
