import { randomUUID } from "node:crypto";
import { appendAuditEvent, type PrismaClient } from "@lastword/db";
import type { TextOrBytesEnvelope } from "@lastword/envelope";
import { type Clock, type RemovedTombstone, systemClock } from "@lastword/logstore";
import type { Logger } from "../logger";
import { AuditSpool, type SpooledEvent } from "./audit-spool";

/** Which partition an event is about, as the audit trail names it. */
export interface AuditedPartition {
  partitionId: string;
  organizationId: string;
  topicId: string;
  topicName: string;
  index: number;
  /** Where its log lives and the epoch we hold it at (the spool of pending events is kept there). */
  dir: string;
  epoch: number;
}

interface Pending extends SpooledEvent {
  spool: AuditSpool;
  /** Taken over from an earlier owner: it may already be in Postgres (died between insert and rewrite). */
  recovered: boolean;
}

/** Tombstones per event: one produce (or pass) is one event unless it holds more than this. */
export const TOMBSTONES_PER_EVENT = 1_000;
const RETRY_MAX_MS = 10_000;
const SPOOL_REWRITE_EVERY = 100;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A key as the compliance role sees keys elsewhere (api envelope "auto"): text when UTF-8, else
 * base64. A key holding NUL is base64 too: Postgres jsonb cannot store U+0000, and an event that
 * fails to insert would block the partition's audit queue behind it.
 */
export function auditKey(key: Buffer): TextOrBytesEnvelope {
  try {
    const text = utf8.decode(key);
    if (!text.includes("\u0000")) return { type: "string", data: text };
  } catch {
    // Not UTF-8: base64 below.
  }
  return { type: "base64", data: key.toString("base64") };
}

/** What both events record of a tombstone: its key as the audit shows keys, its offset, when it was written. */
function writtenEntry(t: { key: Buffer; offset: number; timestamp: number }) {
  return { key: auditKey(t.key), offset: t.offset, writtenAt: new Date(t.timestamp).toISOString() };
}

/**
 * The tombstone audit trail: each produce that writes tombstones to a compacted topic becomes one
 * `tombstones.written` event, and each cleaner pass that removed tombstones one `tombstones.removed`
 * event, each listing its tombstones (topic, partition, key, offset, written at, horizon, removed
 * at, run id), appended to the tenant's hash chain through `appendAuditEvent`, the one chain path.
 *
 * Appends never wait for Postgres: events are queued in order and written by one background loop,
 * which retries with backoff while the database is unreachable (logged once per outage). Each queued
 * event is also in its partition's spool file (audit-spool.ts) before the produce is answered, so a
 * worker that dies with events queued hands them to the partition's next owner, which writes each
 * one once (`data.eventId` tells whether it already reached Postgres).
 */
export class TombstoneAudit {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;
  readonly #logger: Logger;
  readonly #retryBaseMs: number;
  readonly #clock: Clock;
  readonly #queue: Pending[] = [];
  readonly #spools = new Map<string, AuditSpool>();
  readonly #writtenSinceRewrite = new Map<AuditSpool, number>();
  #draining: Promise<void> | null = null;
  #stopped = false;

  constructor(options: {
    prisma: PrismaClient;
    workerId: string;
    logger: Logger;
    retryBaseMs?: number;
    clock?: Clock;
  }) {
    this.#prisma = options.prisma;
    this.#clock = options.clock ?? systemClock;
    this.#workerId = options.workerId;
    this.#logger = options.logger;
    this.#retryBaseMs = options.retryBaseMs ?? 250;
  }

  /** Events not yet in Postgres. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Records the tombstones of one acknowledged produce. `deleteRetentionMs` is the topic's setting:
   * the horizon is stamped by the first cleaning pass (its start + delete.retention.ms), so at write
   * time only the retention is known; the removal event carries the horizon the cleaner used.
   */
  written(
    partition: AuditedPartition,
    tombstones: readonly { key: Buffer; offset: number; timestamp: number }[],
    deleteRetentionMs: number,
  ): void {
    const entries = tombstones.map(writtenEntry);
    this.#enqueue(
      partition,
      "tombstones.written",
      entries,
      { deleteRetentionMs },
      new Date(this.#clock.now()),
    );
  }

  /** Records the tombstones one cleaner pass removed (`CleanResult.removedTombstones`). */
  removed(
    partition: AuditedPartition,
    runId: string,
    tombstones: readonly RemovedTombstone[],
    removedAt: Date,
  ): void {
    const entries = tombstones.map((t) => ({
      ...writtenEntry(t),
      horizon: t.horizonMs === null ? null : new Date(t.horizonMs).toISOString(),
      reason: t.reason,
    }));
    this.#enqueue(
      partition,
      "tombstones.removed",
      entries,
      { runId, removedAt: removedAt.toISOString() },
      removedAt,
    );
  }

  /** A partition this worker just opened: queues the events earlier owners left in its spool. */
  recover(partition: AuditedPartition): void {
    const spool = this.#spool(partition);
    let taken: SpooledEvent[];
    try {
      taken = spool.takeOver(partition.dir, partition.epoch);
    } catch (error) {
      this.#logger.error({ err: error, partitionId: partition.partitionId }, "audit spool not read");
      return;
    }
    if (taken.length === 0) return;
    this.#logger.info(
      { partitionId: partition.partitionId, events: taken.length },
      "audit events taken over",
    );
    for (const entry of taken) this.#queue.push({ ...entry, spool, recovered: true });
    this.#startDraining();
  }

  /** Waits until the queue is empty (or `timeoutMs` passed), then stops retrying. */
  async stop(timeoutMs: number): Promise<void> {
    const drained = this.#draining ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    this.#stopped = true;
    if (this.#queue.length) {
      this.#logger.error({ events: this.#queue.length }, "tombstone audit events not written at shutdown");
    }
  }

  /** As if the process died (`RunningWorker.kill`): drops the queue at once; spool files stay. */
  halt(): void {
    this.#stopped = true;
    this.#queue.length = 0;
  }

  /** Resolves once everything queued so far is written (tests). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  #enqueue(
    partition: AuditedPartition,
    action: string,
    entries: readonly object[],
    extra: Record<string, unknown>,
    now: Date,
  ): void {
    if (entries.length === 0) return;
    const spool = this.#spool(partition);
    for (let from = 0; from < entries.length; from += TOMBSTONES_PER_EVENT) {
      const id = randomUUID();
      const entry: SpooledEvent = {
        id,
        event: {
          organizationId: partition.organizationId,
          actor: { type: "system", id: this.#workerId },
          action,
          target: { type: "partition", id: partition.partitionId },
          data: {
            eventId: id,
            topic: partition.topicName,
            topicId: partition.topicId,
            partition: partition.index,
            ...extra,
            tombstones: entries.slice(from, from + TOMBSTONES_PER_EVENT),
          },
          now,
        },
      };
      try {
        spool.append(entry);
      } catch (error) {
        // Still queued in memory; only a crash before it reaches Postgres would lose it now.
        this.#logger.error({ err: error, partitionId: partition.partitionId }, "audit event not spooled");
      }
      this.#queue.push({ ...entry, spool, recovered: false });
    }
    this.#startDraining();
  }

  #spool(partition: AuditedPartition): AuditSpool {
    const key = `${partition.dir}@${partition.epoch}`;
    let spool = this.#spools.get(key);
    if (!spool) {
      spool = new AuditSpool(partition.dir, partition.epoch);
      this.#spools.set(key, spool);
    }
    return spool;
  }

  #startDraining(): void {
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = null;
    });
  }

  async #write(pending: Pending): Promise<void> {
    const { event } = pending;
    await this.#prisma.$transaction(async (tx) => {
      if (pending.recovered) {
        const already = await tx.auditEvent.findFirst({
          where: {
            organizationId: event.organizationId,
            action: event.action,
            targetId: event.target.id,
            data: { path: ["eventId"], equals: pending.id },
          },
          select: { id: true },
        });
        if (already) return;
      }
      await appendAuditEvent(tx, event);
    });
  }

  async #drain(): Promise<void> {
    let failures = 0;
    while (this.#queue.length && !this.#stopped) {
      const pending = this.#queue[0]!;
      try {
        await this.#write(pending);
        this.#queue.shift();
        this.#rewriteSpool(pending.spool);
        if (failures) this.#logger.info({ pending: this.#queue.length }, "tombstone audit writes resumed");
        failures = 0;
      } catch (error) {
        if (failures === 0) {
          this.#logger.warn(
            { err: error, pending: this.#queue.length },
            "tombstone audit event not written; retrying in the background",
          );
        }
        failures++;
        const delay = Math.min(RETRY_MAX_MS, this.#retryBaseMs * 2 ** Math.min(failures - 1, 10));
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /**
   * Drops written events from the spool: at once when none of its partition is pending any more,
   * otherwise every SPOOL_REWRITE_EVERY writes (a long backlog is not rewritten per event; events
   * left in it meanwhile are already in Postgres, which a takeover detects by their id).
   */
  #rewriteSpool(spool: AuditSpool): void {
    const pending = this.#queue.filter((entry) => entry.spool === spool);
    const written = (this.#writtenSinceRewrite.get(spool) ?? 0) + 1;
    if (pending.length > 0 && written < SPOOL_REWRITE_EVERY) {
      this.#writtenSinceRewrite.set(spool, written);
      return;
    }
    this.#writtenSinceRewrite.delete(spool);
    try {
      spool.rewrite(pending);
    } catch (error) {
      // The directory is gone (partition deleted) or unwritable: Postgres has the event either way.
      this.#logger.warn({ err: error }, "audit spool not rewritten");
    }
  }
}
