import assert from "node:assert/strict";
import { Prisma, type PrismaClient } from "@lastword/db";
import {
  formatMs,
  isBehindTombstone,
  isTombstoneScanned,
  type MissedTombstone,
  purgeWaitMs,
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
import { scanForKey } from "../hosting/erasure-evidence";
import type { HostedLog } from "../hosting/hosted-log";
import type { PartitionHost } from "../hosting/partition-host";
import type { PartitionSlot } from "../hosting/partition-slot";
import type { Logger } from "../logger";
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
   * Instead of a pass over the whole partition, rewrite only the segments below the tombstone that
   * may hold the key (the log store's targeted rewrite; with an object store, those whose key
   * filter may hold it), ignoring min.compaction.lag.ms for that key.
   */
  targeted?: (slot: PartitionSlot, log: HostedLog, key: Buffer, belowOffset: number) => Promise<PassOutcome>;
  /**
   * Every wait between a written tombstone and its proof (`proofDelays` of @lastword/erasure, summed):
   * a rewrite min.compaction.lag.ms holds back runs anyway once only this much is left before the
   * deadline, so the proof still lands by it.
   */
  proofMs: number;
  /**
   * With an object store: deletes the partition's replaced objects below an offset now (not after
   * the grace period): they may hold the erased key. Answers how many went and how many a row of
   * another partition still names (shared commit objects, deleted once those consolidate).
   */
  deleteReplaced?: (partitionId: string, below: number) => Promise<{ deleted: number; shared: number }>;
  /** With an object store: how long a shared commit object may still be named by other partitions. */
  consolidateAfterMs?: number;
}

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
 * Without key filters (no object store) every closed segment below the tombstone may hold the key:
 * the targeted rewrite reads them all, as a pass would, but removes only that key.
 */
export function closedBasesBelow(
  segments: readonly { baseOffset: number; active: boolean }[],
  below: number,
): number[] {
  return segments.filter((s) => !s.active && s.baseOffset < below).map((s) => s.baseOffset);
}

/** What a tombstone's proof waits for now, as the request page shows it (`ErasureTombstone.waitingFor`). */
interface Waiting {
  reason: string;
  /** When it is expected to be over (ISO). */
  until: string;
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
  /** What each tombstone's row says it waits for, so it is written only when it changes. */
  readonly #waiting = new Map<string, string>();

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
        if (this.#blockedUntil.has(row.id)) continue;
        if (this.#needsPass(slot.partitionId, log, row, activeBase, nowMs)) passFor.push(row);
        else if (row.status === WRITTEN_TOMBSTONE_STATUS) await this.#waitForMinLag(log, row);
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
      let shared = 0;
      if (scanned.blockedBy !== null && this.#o.deleteReplaced) {
        // Replaced objects below the tombstone may hold the key: they go now, not after the grace.
        const below =
          TOMBSTONE_SCANS[row.status].scan === "purge" ? Number(row.offset) : Number.POSITIVE_INFINITY;
        const replaced = await this.#o.deleteReplaced(slot.partitionId, below);
        shared = replaced.shared;
        if (replaced.deleted > 0) scanned = await this.#scan(slot, log, row, nowMs);
      }
      const { evidence, blockedBy } = scanned;
      this.#scannedAfterPasses.set(row.id, passesBefore);
      this.#blockedUntil.delete(row.id);
      if (evidence.result === "absent") {
        await this.#record(row, evidence, log, new Date(nowMs));
      } else if (blockedBy !== null) {
        // Rescanned every tick: what blocks it (an upload, another worker's copy) clears on its own.
        this.#blockedUntil.set(row.id, nowMs + this.#o.tickMs);
        await this.#waitFor(
          row,
          shared > 0
            ? {
                reason: `${shared} replaced commit object(s) shared with other partitions are deleted once those partitions move their records to their own objects`,
                until: new Date(nowMs + (this.#o.consolidateAfterMs ?? this.#o.tickMs)).toISOString(),
              }
            : { reason: blockedBy, until: new Date(nowMs + this.#o.tickMs).toISOString() },
        );
      } else if (this.#needsPass(slot.partitionId, log, row, activeBase, nowMs)) {
        passFor.push(row);
      } else if (row.status === WRITTEN_TOMBSTONE_STATUS) {
        await this.#waitForMinLag(log, row);
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
    for (const row of passFor) {
      await this.#waitFor(row, {
        reason:
          row.status === WRITTEN_TOMBSTONE_STATUS
            ? "the rewrite of the segments that may hold the key runs, then the next tick proves it"
            : "a cleaner pass stamps the tombstone's delete horizon",
        until: new Date(nowMs + 2 * this.#o.tickMs).toISOString(),
      });
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
    return nowMs >= this.#dueAt(log, row);
  }

  /**
   * A tombstone's rewrite is due at once, or once min.compaction.lag.ms no longer protects the
   * key's records (all older than the tombstone), but never later than the deadline less the
   * proof's own time: the rewrite ignores the lag for that key, so no setting can stop the purge.
   */
  #dueAt(log: HostedLog, row: PendingTombstone): number {
    const writtenAt = row.writtenAt.getTime();
    return (
      writtenAt +
      purgeWaitMs(log.config.minCompactionLagMs, writtenAt, row.deadlineAt.getTime(), this.#o.proofMs)
    );
  }

  /** Not due yet: min.compaction.lag.ms holds the rewrite back (the topic's configs may change meanwhile). */
  #waitForMinLag(log: HostedLog, row: PendingTombstone): Promise<void> {
    return this.#waitFor(row, {
      reason: `min.compaction.lag.ms (${formatMs(log.config.minCompactionLagMs)}) protects the key's records until its targeted rewrite`,
      until: new Date(this.#dueAt(log, row)).toISOString(),
    });
  }

  /** Records what the tombstone's proof waits for now (the request page says it), when it changed. */
  async #waitFor(row: PendingTombstone, waiting: Waiting): Promise<void> {
    const said = JSON.stringify(waiting);
    if (this.#waiting.get(row.id) === said) return;
    await this.#o.prisma.erasureTombstone.updateMany({
      where: { id: row.id, status: toStored(row.status) },
      data: { waitingFor: { ...waiting } },
    });
    this.#waiting.set(row.id, said);
  }

  /**
   * The scan proved the tombstone's next step: store the proof and move it on (only from where it
   * was). With the expiry proof go the groups still behind the tombstone: once it is gone they can
   * no longer read the delete, and the request keeps them flagged after it closes.
   */
  async #record(row: PendingTombstone, evidence: ScanEvidence, log: HostedLog, at: Date) {
    const { scan, next } = TOMBSTONE_SCANS[row.status];
    // A purged tombstone stays delete.retention.ms after the pass that stamps its horizon, so
    // consumers read the delete; then a pass removes it and a tick proves it gone.
    const retention = log.config.deleteRetentionMs;
    const waitingFor: Waiting | null =
      scan === "purge"
        ? {
            reason: `the tombstone stays delete.retention.ms (${formatMs(retention)}) so consumers read the delete, then a cleaner pass removes it`,
            until: new Date(
              Math.min(at.getTime() + retention + 2 * this.#o.tickMs + this.#o.proofMs, 8.64e15),
            ).toISOString(),
          }
        : null;
    const proof =
      scan === "purge"
        ? { purgedAt: at, purgeEvidence: evidence }
        : { expiredAt: at, expiryEvidence: evidence, missedBy: await this.#groupsBehind(row) };
    this.#waiting.delete(row.id);
    return this.#o.prisma.erasureTombstone.updateMany({
      where: { id: row.id, status: toStored(row.status) },
      data: { status: toStored(next), ...proof, waitingFor: waitingFor ? { ...waitingFor } : Prisma.DbNull },
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
