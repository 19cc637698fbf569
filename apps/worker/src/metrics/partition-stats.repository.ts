import type { PrismaClient } from "@lastword/db";
import { type Clock, systemClock } from "@lastword/logstore";
import { lockedOwnedPartitions } from "../ownership/partition-row-locks";
import { FetchTally } from "./fetch-tally";

/** What the console shows per partition (Partition.stats), refreshed by its owner every scheduler tick. */
export interface PartitionStats {
  sizeBytes: number;
  segments: number;
  logStartOffset: number;
  logEndOffset: number;
  dirtyRatio: number;
  cleanable: boolean;
  maxCompactionDelayMs: number;
  nextCleanDueAt: string | null;
  lastCleanAt: string | null;
  uncleanable: { error: string; failures: number; held: boolean; retryAt: string | null } | null;
  workerId: string;
  updatedAt: string;
}

const MINUTE_MS = 60_000;
/** How long the per-minute samples behind the console's charts are kept. */
export const SAMPLE_RETENTION_MS = 24 * 60 * MINUTE_MS;
/** A minute's sample is rewritten at most this often, so a 1 s tick costs one statement, not three. */
const SAMPLE_REFRESH_MS = 10_000;

export class PartitionStatsRepository {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;
  readonly #clock: Clock;
  readonly #fetched: FetchTally;
  #sampledAtMs = Number.NEGATIVE_INFINITY;
  #sampledMinute = Number.NaN;

  /** `fetched`: the records served per partition, drained into each sample (the worker's metrics). */
  constructor(
    prisma: PrismaClient,
    workerId: string,
    clock: Clock = systemClock,
    fetched = new FetchTally(),
  ) {
    this.#prisma = prisma;
    this.#workerId = workerId;
    this.#clock = clock;
    this.#fetched = fetched;
  }

  /**
   * One statement for all of this worker's partitions, locked in id order like its other
   * multi-row statements (`partition-row-locks.ts`); rows it no longer owns are left alone.
   */
  async save(stats: ReadonlyMap<string, PartitionStats>): Promise<void> {
    if (stats.size === 0) return;
    const ids = [...stats.keys()];
    const values = [...stats.values()].map((s) => JSON.stringify(s));
    await this.#prisma.$executeRaw`
      WITH ${lockedOwnedPartitions(this.#workerId, ids)}
      UPDATE "Partition" p SET "stats" = v."stats"
      FROM unnest(${ids}::text[], ${values}::jsonb[]) AS v("id", "stats"), "locked" l
      WHERE p."id" = v."id" AND l."id" = p."id" AND p."ownerWorkerId" = ${this.#workerId}`;
    await this.#sample(stats);
  }

  /**
   * The minute's history row per partition (size, dirty bytes as the topic list counts them, end
   * offset, records fetched: added up over the minute's writes) and each group's lag on it; a new
   * minute also drops rows past the retention.
   */
  async #sample(stats: ReadonlyMap<string, PartitionStats>): Promise<void> {
    const nowMs = this.#clock.now();
    const minuteMs = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const newMinute = minuteMs !== this.#sampledMinute;
    if (!newMinute && nowMs - this.#sampledAtMs < SAMPLE_REFRESH_MS) return;
    this.#sampledAtMs = nowMs;
    this.#sampledMinute = minuteMs;
    const at = new Date(minuteMs);
    const ids = [...stats.keys()];
    const reports = [...stats.values()];
    const sizes = reports.map((s) => s.sizeBytes);
    const dirty = reports.map((s) => Math.round(s.dirtyRatio * s.sizeBytes));
    const ends = reports.map((s) => s.logEndOffset);
    const fetched = ids.map((id) => this.#fetched.take(id));
    await this.#prisma.$executeRaw`
      INSERT INTO "PartitionSample" ("partitionId", "at", "sizeBytes", "dirtyBytes", "logEndOffset", "fetchedRecords")
      SELECT v."id", ${at}, v."size", v."dirty", v."end", v."fetched"
      FROM unnest(${ids}::text[], ${sizes}::bigint[], ${dirty}::bigint[], ${ends}::bigint[], ${fetched}::bigint[])
        AS v("id", "size", "dirty", "end", "fetched")
      JOIN "Partition" p ON p."id" = v."id" AND p."ownerWorkerId" = ${this.#workerId}
      ON CONFLICT ("partitionId", "at") DO UPDATE SET "sizeBytes" = EXCLUDED."sizeBytes",
        "dirtyBytes" = EXCLUDED."dirtyBytes", "logEndOffset" = EXCLUDED."logEndOffset",
        "fetchedRecords" = "PartitionSample"."fetchedRecords" + EXCLUDED."fetchedRecords"`;
    await this.#prisma.$executeRaw`
      INSERT INTO "GroupLagSample" ("groupId", "topicId", "partitionIndex", "at", "lag")
      SELECT o."groupId", p."topicId", p."index", ${at}, GREATEST(v."end" - o."offset", 0)
      FROM unnest(${ids}::text[], ${ends}::bigint[]) AS v("id", "end")
      JOIN "Partition" p ON p."id" = v."id" AND p."ownerWorkerId" = ${this.#workerId}
      JOIN "ConsumerGroupOffset" o ON o."topicId" = p."topicId" AND o."partitionIndex" = p."index"
        -- A negative offset is no committed position (committedPosition): no lag to sample.
        AND o."offset" >= 0
      ON CONFLICT ("groupId", "topicId", "partitionIndex", "at") DO UPDATE SET "lag" = EXCLUDED."lag"`;
    if (!newMinute) return;
    // Every worker prunes everything past the retention (deleted topics' rows included); idempotent.
    const cutoff = new Date(minuteMs - SAMPLE_RETENTION_MS);
    await this.#prisma.$executeRaw`DELETE FROM "PartitionSample" WHERE "at" < ${cutoff}`;
    await this.#prisma.$executeRaw`DELETE FROM "GroupLagSample" WHERE "at" < ${cutoff}`;
  }
}
