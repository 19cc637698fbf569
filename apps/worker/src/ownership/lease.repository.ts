import { Prisma } from "@lastword/db";
import type { LoadSnapshot } from "./fair-share";
import { DB_NOW, dbInterval, LeaseHolder } from "./lease-holder";
import { lockedOwnedPartitions } from "./partition-row-locks";
import { ENDED_SESSIONS, HELD_SESSIONS, RELEASED_CHANNEL } from "./worker-session";

/** A partition this worker holds, with what it needs to open the log. */
export interface ClaimedPartition {
  partitionId: string;
  topicId: string;
  organizationId: string;
  /** The topic's name (names what audit events are about). */
  topicName: string;
  index: number;
  epoch: number;
  configs: Record<string, string | number>;
  configVersion: number;
}

export interface RenewedLease {
  partitionId: string;
  epoch: number;
  configs: Record<string, string | number>;
  configVersion: number;
}

/** A claimed partition as the claim query returns it: configs still raw JSON, the config version a time. */
type ClaimRow = Omit<ClaimedPartition, "configs" | "configVersion"> & { configs: unknown; updatedAt: Date };

/**
 * A partition nobody may be writing: unowned, its lease expired, or (`sessions`) its owner's
 * session ended (the worker died: worker-session.ts). Never our own by session (a session of ours
 * that dropped is reconnecting, and our renewal decides what we still hold).
 */
function claimable(workerId: string, sessions: boolean): Prisma.Sql {
  const ended = sessions
    ? Prisma.sql`OR (p."ownerWorkerId" <> ${workerId} AND p."ownerWorkerId" IN ${ENDED_SESSIONS})`
    : Prisma.empty;
  return Prisma.sql`(p."ownerWorkerId" IS NULL OR p."leaseExpiresAt" IS NULL OR p."leaseExpiresAt" <= ${DB_NOW} ${ended})`;
}

/**
 * A worker that counts for the fair share: heartbeat within a TTL, not stopped, and (`sessions`)
 * its session held if it keeps one.
 */
function live(ttlMs: number, sessions: boolean): Prisma.Sql {
  const held = sessions
    ? Prisma.sql`AND (NOT w."sessionLock" OR w."nodeId"::oid IN ${HELD_SESSIONS})`
    : Prisma.empty;
  return Prisma.sql`w."stoppedAt" IS NULL AND w."heartbeatAt" > ${DB_NOW} - ${dbInterval(ttlMs)} ${held}`;
}

/**
 * Closes the cleaner passes still `running` on the partitions just claimed (from the `claimed` CTE):
 * the claim proves their worker's lease is gone (expired or released), and a pass is fenced by that
 * lease, so none of them can swap its segments in any more. A worker killed mid-pass never closes
 * its row; without this it would stay `running` forever. An earlier owner still alive whose pass
 * ends after all writes its real outcome over this one (its finish/fail update is by id).
 */
const ABANDON_RUNS = Prisma.sql`
  UPDATE "CleanerRun" r
  SET "status" = 'abandoned', "finishedAt" = ${DB_NOW},
      "error" = 'abandoned: worker ' || COALESCE(r."workerId", 'unknown') ||
                ' lost the partition''s lease before the pass finished (claimed again at lease epoch ' || c."epoch" || ')'
  FROM claimed c
  WHERE r."partitionId" = c."partitionId" AND r."status" = 'running'`;

/**
 * The lease table (Partition.ownerWorkerId / leaseEpoch / leaseExpiresAt). leaseEpoch is the fencing
 * token: it grows by one on every takeover, and every write first proves owner + epoch + unexpired
 * lease in one statement (fence.repository.ts), so a worker that lost its lease cannot write.
 */
export class LeaseRepository extends LeaseHolder {
  /**
   * `sessions` false: judge others by heartbeat and lease only, as if no worker kept a session (our
   * own session is young, e.g. everyone is reconnecting after a database restart).
   * Every worker runs this each claim tick, so it reads the Partition table once (counts per
   * owner), not once per figure: the table is the fleet's largest, and four scans of it per tick
   * per worker were what saturated Postgres first as partitions grew.
   */
  async loadSnapshot(
    sessions = true,
  ): Promise<LoadSnapshot & { claimable: number; minOwnedByLiveWorker: number }> {
    const rows = await this.prisma.$queryRaw<
      (LoadSnapshot & { claimable: number; minOwnedByLiveWorker: number })[]
    >`
      WITH "byOwner" AS MATERIALIZED (
        SELECT p."ownerWorkerId" AS "owner", count(*) AS "owned",
               count(*) FILTER (WHERE ${claimable(this.workerId, sessions)}) AS "claimable"
        FROM "Partition" p GROUP BY p."ownerWorkerId"
      ), "live" AS MATERIALIZED (
        SELECT w."id" FROM "Worker" w WHERE ${live(this.ttlMs, sessions)}
      )
      SELECT (SELECT COALESCE(sum("owned"), 0)::int FROM "byOwner") AS "totalPartitions",
             (SELECT count(*)::int FROM "live") AS "liveWorkers",
             (SELECT COALESCE(sum("owned"), 0)::int FROM "byOwner" WHERE "owner" = ${this.workerId}) AS "ownedByMe",
             (SELECT COALESCE(sum("claimable"), 0)::int FROM "byOwner") AS "claimable",
             (SELECT COALESCE(min(COALESCE(o."owned", 0)), 0)::int
                FROM "live" l LEFT JOIN "byOwner" o ON o."owner" = l."id") AS "minOwnedByLiveWorker"`;
    return rows[0]!;
  }

  /**
   * Takes up to `limit` unowned or expired partitions (or a dead worker's), oldest-waiting first, bumping each epoch, and
   * marks the passes their earlier owner left `running` as `abandoned` in the same statement.
   * With `waitingLongerThanMs`, only partitions claimable for at least that long are taken;
   * `sessions` as for loadSnapshot.
   * SKIP LOCKED never waits for a row lock, so this statement cannot be part of a deadlock.
   */
  async claim(limit: number, waitingLongerThanMs?: number, sessions = true): Promise<ClaimedPartition[]> {
    if (limit <= 0) return [];
    const waited =
      waitingLongerThanMs === undefined
        ? Prisma.sql`TRUE`
        : Prisma.sql`COALESCE(p."leaseExpiresAt", p."createdAt") <= ${DB_NOW} - ${dbInterval(waitingLongerThanMs)}`;
    const rows = await this.prisma.$queryRaw<ClaimRow[]>`
      WITH candidates AS (
        SELECT p."id" FROM "Partition" p
        WHERE ${claimable(this.workerId, sessions)} AND ${waited}
        ORDER BY COALESCE(p."leaseExpiresAt", p."createdAt"), p."id"
        LIMIT ${limit}
        FOR UPDATE OF p SKIP LOCKED
      ), claimed AS (
        UPDATE "Partition" p
        SET "ownerWorkerId" = ${this.workerId}, "leaseEpoch" = p."leaseEpoch" + 1,
            "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
        FROM candidates c, "Topic" t
        WHERE p."id" = c."id" AND t."id" = p."topicId" AND ${claimable(this.workerId, sessions)}
        RETURNING p."id" AS "partitionId", p."topicId", t."organizationId", t."name" AS "topicName", p."index",
                  p."leaseEpoch" AS "epoch", t."configs", t."updatedAt"
      ), abandoned AS (
        ${ABANDON_RUNS}
      )
      SELECT * FROM claimed`;
    return rows.map((row) => ({
      partitionId: row.partitionId,
      topicId: row.topicId,
      organizationId: row.organizationId,
      topicName: row.topicName,
      index: row.index,
      epoch: row.epoch,
      configs: toConfigs(row.configs),
      configVersion: row.updatedAt.getTime(),
    }));
  }

  /**
   * Extends every lease this worker still holds. Owner unchanged means nobody took over (a takeover
   * sets a new owner and epoch), so extending an already-expired lease of ours is still safe.
   * Rows are locked in id order like the manifest commit's (`partition-row-locks.ts`).
   */
  async renewAll(): Promise<RenewedLease[]> {
    const rows = await this.prisma.$queryRaw<
      Omit<ClaimRow, "topicId" | "organizationId" | "topicName" | "index">[]
    >`
      WITH ${lockedOwnedPartitions(this.workerId)}
      UPDATE "Partition" p SET "leaseExpiresAt" = ${DB_NOW} + ${dbInterval(this.ttlMs)}
      FROM "locked" l, "Topic" t
      WHERE p."id" = l."id" AND p."ownerWorkerId" = ${this.workerId} AND t."id" = p."topicId"
      RETURNING p."id" AS "partitionId", p."leaseEpoch" AS "epoch", t."configs", t."updatedAt"`;
    return rows.map((row) => ({
      partitionId: row.partitionId,
      epoch: row.epoch,
      configs: toConfigs(row.configs),
      configVersion: row.updatedAt.getTime(),
    }));
  }

  /** Gives a partition back at once (its log is already closed) so another worker need not wait for expiry. */
  async release(partitionId: string, epoch: number): Promise<void> {
    const released = await this.prisma.$executeRaw`
      UPDATE "Partition" SET "ownerWorkerId" = NULL, "leaseExpiresAt" = NULL
      WHERE "id" = ${partitionId} AND "ownerWorkerId" = ${this.workerId} AND "leaseEpoch" = ${epoch}`;
    if (released > 0) await this.#announceRelease();
  }

  /** Gives back every partition this worker holds, locking them in id order (`partition-row-locks.ts`). */
  async releaseAll(): Promise<number> {
    const released = await this.prisma.$executeRaw`
      WITH ${lockedOwnedPartitions(this.workerId)}
      UPDATE "Partition" p SET "ownerWorkerId" = NULL, "leaseExpiresAt" = NULL
      FROM "locked" l
      WHERE p."id" = l."id" AND p."ownerWorkerId" = ${this.workerId}`;
    if (released > 0) await this.#announceRelease();
    return released;
  }

  /** Peers listening (worker-session.ts) run a claim tick at once instead of at their next one. */
  async #announceRelease(): Promise<void> {
    // pg_notify returns void, which Prisma cannot read as a row: executed, not queried.
    await this.prisma.$executeRaw`SELECT pg_notify(${RELEASED_CHANNEL}, ${this.workerId})`;
  }

  /** Which of these partitions still have a row (the others were deleted with their topic). */
  async existing(partitionIds: readonly string[]): Promise<Set<string>> {
    if (partitionIds.length === 0) return new Set();
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "Partition" WHERE "id" = ANY(${[...partitionIds]}::text[])`;
    return new Set(rows.map((row) => row.id));
  }
}

function toConfigs(value: unknown): Record<string, string | number> {
  const configs: Record<string, string | number> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return configs;
  for (const [name, setting] of Object.entries(value)) {
    if (typeof setting === "string" || typeof setting === "number") configs[name] = setting;
  }
  return configs;
}
