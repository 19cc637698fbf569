import type pg from "pg";
import { WorkerPoolRepository } from "../ownership/bounded-pool";
import { loadManifest, type ManifestRow } from "./manifest.repository";
import { unnestColumns } from "./unnest-columns";

const CHANGE_TIMEOUT_MS = 10_000;

/** A row a change inserts: the epoch and commit time are the change's own. */
export type NewManifestRow = Omit<ManifestRow, "epoch" | "createdAtMs">;

/** Why an object stopped being named (kept with it for the erasure evidence). */
export type SupersedeReason = "upload" | "consolidation" | "cleaner" | "retention" | "rewrite";

export type ChangeOutcome = "done" | "fenced" | "conflict";

/** A superseded object, deleted or not (`deletedAt`). */
export interface SupersededRow {
  objectKey: string;
  sha256: string;
  baseOffset: number;
  lastOffset: number;
  reason: string;
  deletedAt: Date | null;
}

/** A worker whose disk may hold a copy of a partition; null heartbeat: the worker row is gone. */
export interface CopyRow {
  workerId: string;
  heartbeatAt: Date | null;
  stoppedAt: Date | null;
}

/** An object whose grace period passed and that no row names any more: it may be deleted. */
export interface DueObject {
  objectKey: string;
  ids: string[];
}

/**
 * Changes to a partition's manifest other than the commit window's appends: replacing the rows of
 * a range by others (a segment uploaded, commit rows consolidated, a cleaner pass's segments),
 * trimming rows below the log start, and the queue of superseded objects. Each change is one
 * transaction under the partition's lease (owner and epoch, the Partition row locked first): a
 * worker that lost the lease changes nothing ("fenced"), and the rows always tile from the first
 * row's base to the durable end, or the change is refused ("conflict"). On its own pool, so a
 * change never queues a produce's commit.
 */
export class ManifestChangesRepository extends WorkerPoolRepository {
  constructor(databaseUrl: string, workerId: string, maxConnections = 2) {
    super(databaseUrl, workerId, maxConnections, CHANGE_TIMEOUT_MS);
  }

  /**
   * Replaces every row inside [from, to] by `rows`, which must tile [from, to] exactly; the rows
   * replaced must lie inside it (none straddles an end), and the result must still tile up to
   * the durable end. The objects of the replaced rows are queued as superseded.
   */
  replaceRange(
    partitionId: string,
    epoch: number,
    change: { from: number; to: number; rows: readonly NewManifestRow[]; reason: SupersedeReason },
  ): Promise<ChangeOutcome> {
    return this.#underLease(partitionId, epoch, async (client) => {
      const { from, to } = change;
      const manifest = await loadManifest(client, partitionId, true);
      const end = manifest.durableEndOffset;
      if (end === null || to >= end || !tiles(change.rows, from, to)) return "conflict";
      const inside = manifest.rows.filter((row) => row.lastOffset >= from && row.baseOffset <= to);
      if (inside.some((row) => row.baseOffset < from || row.lastOffset > to)) return "conflict";
      const before = manifest.rows.filter((row) => row.lastOffset < from);
      const after = manifest.rows.filter((row) => row.baseOffset > to);
      if (!tiles([...before, ...change.rows, ...after], before[0]?.baseOffset ?? from, end - 1)) {
        return "conflict";
      }
      await client.query(
        `DELETE FROM "PartitionObject" WHERE "partitionId" = $1 AND "baseOffset" = ANY($2::bigint[])`,
        [partitionId, inside.map((row) => row.baseOffset)],
      );
      await this.#insert(client, partitionId, epoch, change.rows);
      await supersede(client, partitionId, inside, change.reason);
      return "done";
    });
  }

  /**
   * Records that offsets below `logStartOffset` are gone: the start moves up, rows wholly below it
   * go (their objects superseded), and a durable end behind it (records deleted before they were
   * uploaded) moves to it, so later commits continue from there.
   */
  trimBelow(partitionId: string, epoch: number, logStartOffset: number): Promise<ChangeOutcome> {
    return this.#underLease(partitionId, epoch, async (client) => {
      const manifest = await loadManifest(client, partitionId, true);
      const end = manifest.durableEndOffset;
      if (end === null) return "conflict";
      const gone = manifest.rows.filter((row) => row.lastOffset < logStartOffset);
      await client.query(
        `DELETE FROM "PartitionObject" WHERE "partitionId" = $1 AND "baseOffset" = ANY($2::bigint[])`,
        [partitionId, gone.map((row) => row.baseOffset)],
      );
      await client.query(
        `UPDATE "Partition" SET "durableStartOffset" = GREATEST(COALESCE("durableStartOffset", 0), $2),
                "durableEndOffset" = GREATEST("durableEndOffset", $2)
         WHERE "id" = $1`,
        [partitionId, logStartOffset],
      );
      await supersede(client, partitionId, gone, "retention");
      return "done";
    });
  }

  /**
   * Superseded objects past `graceMs` (the database's clock) that no manifest row names any more,
   * oldest first: what a reader that loaded an older manifest could still be fetching is given
   * the grace period to finish.
   */
  async due(graceMs: number, limit = 200): Promise<DueObject[]> {
    const result = await this.pool.query<{ objectKey: string; ids: string[] }>(
      `SELECT s."objectKey", array_agg(s."id"::text) AS "ids"
       FROM "SupersededObject" s
       WHERE s."deletedAt" IS NULL AND s."supersededAt" < now() - ($1::bigint * interval '1 millisecond')
         AND NOT EXISTS (SELECT 1 FROM "PartitionObject" o WHERE o."objectKey" = s."objectKey")
       GROUP BY s."objectKey" ORDER BY min(s."supersededAt") LIMIT $2`,
      [graceMs, limit],
    );
    return result.rows;
  }

  /**
   * The partition's superseded objects below `below` not deleted yet (what an erasure's proof
   * waits for), each with whether a manifest row still names it (a commit object shared with
   * partitions that have not consolidated yet: it must stay until they do).
   */
  async pendingBelow(partitionId: string, below: number): Promise<(DueObject & { named: boolean })[]> {
    const result = await this.pool.query<{ objectKey: string; ids: string[]; named: boolean }>(
      `SELECT s."objectKey", array_agg(s."id"::text) AS "ids",
         EXISTS (SELECT 1 FROM "PartitionObject" o WHERE o."objectKey" = s."objectKey") AS "named"
       FROM "SupersededObject" s
       WHERE s."partitionId" = $1 AND s."baseOffset" < $2 AND s."deletedAt" IS NULL
       GROUP BY s."objectKey"`,
      [partitionId, Number.isFinite(below) ? below : Number.MAX_SAFE_INTEGER],
    );
    return result.rows;
  }

  /**
   * The other partitions whose rows still name an object this partition stopped naming below
   * `below` (they share a commit object it is waiting to delete).
   */
  async sharersBelow(partitionId: string, below: number): Promise<string[]> {
    const result = await this.pool.query<{ partitionId: string }>(
      `SELECT DISTINCT o."partitionId" FROM "PartitionObject" o
       WHERE o."partitionId" <> $1 AND o."objectKey" IN (
         SELECT s."objectKey" FROM "SupersededObject" s
         WHERE s."partitionId" = $1 AND s."baseOffset" < $2 AND s."deletedAt" IS NULL)`,
      [partitionId, Number.isFinite(below) ? below : Number.MAX_SAFE_INTEGER],
    );
    return result.rows.map((row) => row.partitionId);
  }

  async markDeleted(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(
      `UPDATE "SupersededObject" SET "deletedAt" = now() WHERE "id" = ANY($1::bigint[]) AND "deletedAt" IS NULL`,
      [ids],
    );
  }

  /**
   * Objects the manifest stopped naming for the partition that held offsets below `below`: every
   * one not yet deleted, and those deleted that were superseded since `since`.
   */
  async supersededBelow(partitionId: string, below: number, since: Date): Promise<SupersededRow[]> {
    const result = await this.pool.query<{
      objectKey: string;
      sha256: string;
      baseOffset: string;
      lastOffset: string;
      reason: string;
      deletedAt: Date | null;
    }>(
      `SELECT "objectKey", "sha256", "baseOffset", "lastOffset", "reason", "deletedAt"
       FROM "SupersededObject"
       WHERE "partitionId" = $1 AND "baseOffset" < $2 AND ("deletedAt" IS NULL OR "supersededAt" >= $3)
       ORDER BY "baseOffset", "supersededAt"`,
      [partitionId, Number.isFinite(below) ? below : Number.MAX_SAFE_INTEGER, since],
    );
    return result.rows.map((row) => ({
      ...row,
      baseOffset: Number(row.baseOffset),
      lastOffset: Number(row.lastOffset),
    }));
  }

  /** The workers whose disk may hold a copy of the partition, with when each was last heard of. */
  async copiesOf(partitionId: string): Promise<CopyRow[]> {
    const result = await this.pool.query<CopyRow>(
      `SELECT c."workerId", w."heartbeatAt", w."stoppedAt"
       FROM "PartitionCache" c LEFT JOIN "Worker" w ON w."id" = c."workerId"
       WHERE c."partitionId" = $1 ORDER BY c."workerId"`,
      [partitionId],
    );
    return result.rows;
  }

  async #underLease(
    partitionId: string,
    epoch: number,
    change: (client: pg.PoolClient) => Promise<ChangeOutcome>,
  ): Promise<ChangeOutcome> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const held = await client.query(
        `SELECT 1 FROM "Partition" WHERE "id" = $1 AND "ownerWorkerId" = $2 AND "leaseEpoch" = $3
         FOR NO KEY UPDATE`,
        [partitionId, this.workerId, epoch],
      );
      const outcome = held.rowCount === 1 ? await change(client) : "fenced";
      await client.query(outcome === "done" ? "COMMIT" : "ROLLBACK");
      return outcome;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async #insert(
    client: pg.PoolClient,
    partitionId: string,
    epoch: number,
    rows: readonly NewManifestRow[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO "PartitionObject"
         ("partitionId", "kind", "objectKey", "position", "byteSize", "sha256", "baseOffset", "lastOffset", "epoch", "stats", "startsSegment")
       SELECT $1, i."kind"::"PartitionObjectKind", i."objectKey", i."position", i."byteSize", i."sha256",
              i."baseOffset", i."lastOffset", $2, i."stats", i."startsSegment"
       FROM unnest($3::text[], $4::text[], $5::bigint[], $6::int[], $7::text[], $8::bigint[], $9::bigint[], $10::jsonb[], $11::bool[])
         AS i("kind", "objectKey", "position", "byteSize", "sha256", "baseOffset", "lastOffset", "stats", "startsSegment")`,
      [
        partitionId,
        epoch,
        ...unnestColumns(rows, [
          "kind",
          "objectKey",
          "position",
          "byteSize",
          "sha256",
          "baseOffset",
          "lastOffset",
        ]),
        rows.map((r) => (r.stats === null ? null : JSON.stringify(r.stats))),
        rows.map((r) => r.startsSegment),
      ],
    );
  }
}

/** Rows in offset order that cover [from, to] with no gap or overlap. */
function tiles(
  rows: readonly { baseOffset: number; lastOffset: number }[],
  from: number,
  to: number,
): boolean {
  let next = from;
  for (const row of rows) {
    if (row.baseOffset !== next || row.lastOffset < row.baseOffset) return false;
    next = row.lastOffset + 1;
  }
  return next === to + 1;
}

async function supersede(
  client: pg.PoolClient,
  partitionId: string,
  rows: readonly ManifestRow[],
  reason: SupersedeReason,
): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO "SupersededObject" ("objectKey", "partitionId", "reason", "sha256", "baseOffset", "lastOffset")
     SELECT k, $1, $2, h, b, l FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS i(k, h, b, l)`,
    [partitionId, reason, ...unnestColumns(rows, ["objectKey", "sha256", "baseOffset", "lastOffset"])],
  );
}
