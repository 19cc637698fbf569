import type pg from "pg";
import { z } from "zod";
import type { EpochEntry } from "../hosting/leader-epochs";
import { WorkerPoolRepository } from "../ownership/bounded-pool";
import { parseSegmentObjectStats, type SegmentObjectStats } from "./segment-objects";
import { unnestColumns } from "./unnest-columns";

const MANIFEST_TIMEOUT_MS = 5_000;

const epochEntriesSchema = z.array(
  z.object({ epoch: z.number().int().nonnegative(), startOffset: z.number().int().nonnegative() }),
);

/** A manifest row: where one contiguous range of a partition's stored batches is kept. */
export interface ManifestRow {
  kind: "commit" | "segment";
  objectKey: string;
  /** The partition's bytes are [position, position + byteSize) of the object. */
  position: number;
  byteSize: number;
  sha256: string;
  baseOffset: number;
  lastOffset: number;
  epoch: number;
  /** A segment row's bookkeeping (segment-objects.ts); null on commit rows. */
  stats: SegmentObjectStats | null;
  /** The row begins where its writer began a segment. */
  startsSegment: boolean;
  /** When the row was committed (the database's clock). */
  createdAtMs: number;
}

/** What the manifest says about one partition: its durable end and the rows up to it, in offset order. */
export interface PartitionManifest {
  /** Null until a worker first opened the partition with an object store. */
  durableEndOffset: number | null;
  /** Offsets below are gone (retention, deleteRecords); null: from the first row on. */
  durableStartOffset: number | null;
  rows: ManifestRow[];
}

/** One partition's part of a commit object, committed under the lease epoch its writer holds. */
export interface CommitEntry {
  partitionId: string;
  epoch: number;
  baseOffset: number;
  lastOffset: number;
  position: number;
  byteSize: number;
  sha256: string;
  /** The entry begins where the writer began a segment. */
  startsSegment: boolean;
}

/**
 * The manifest (Partition.durableEndOffset and PartitionObject) on its own bounded pool, like the
 * fencing check: a commit runs once per commit window, on every produce's path.
 * Every change is conditional on the writer's lease: owner and epoch unchanged, and the durable end
 * still the one it extends. A partition whose condition fails is fenced; nothing of it is written.
 */
export class ManifestRepository extends WorkerPoolRepository {
  constructor(databaseUrl: string, workerId: string, maxConnections = 2) {
    super(databaseUrl, workerId, maxConnections, MANIFEST_TIMEOUT_MS);
  }

  async load(partitionId: string): Promise<PartitionManifest> {
    return loadManifest(this.pool, partitionId);
  }

  /** The partition's leader epochs as its owners recorded them; null when none was kept yet. */
  async leaderEpochs(partitionId: string): Promise<EpochEntry[] | null> {
    const result = await this.pool.query<{ leaderEpochs: unknown }>(
      `SELECT "leaderEpochs" FROM "Partition" WHERE "id" = $1`,
      [partitionId],
    );
    const stored = result.rows[0]?.leaderEpochs;
    return stored === null || stored === undefined ? null : epochEntriesSchema.parse(stored);
  }

  /**
   * Keeps `entries` (the history with this owner's epoch added) as the partition's leader epochs,
   * only while this worker holds the lease at `epoch`. False when fenced.
   */
  async recordLeaderEpochs(
    partitionId: string,
    epoch: number,
    entries: readonly EpochEntry[],
  ): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE "Partition" SET "leaderEpochs" = $4::jsonb
       WHERE "id" = $1 AND "ownerWorkerId" = $2 AND "leaseEpoch" = $3`,
      [partitionId, this.workerId, epoch, JSON.stringify(entries)],
    );
    return result.rowCount === 1;
  }

  /**
   * Starts the manifest of a partition opened for the first time with an object store at the end
   * of the log found on disk (what was written before is not in object storage). False when fenced
   * or already started.
   */
  async start(partitionId: string, epoch: number, endOffset: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE "Partition" SET "durableEndOffset" = $4
       WHERE "id" = $1 AND "ownerWorkerId" = $2 AND "leaseEpoch" = $3 AND "durableEndOffset" IS NULL`,
      [partitionId, this.workerId, epoch, endOffset],
    );
    return result.rowCount === 1;
  }

  /**
   * Commits one commit object's rows in one statement: each partition's durable end moves from the
   * entry's base offset past its last offset only if this worker still holds the lease at the
   * entry's epoch, and its row is inserted only then. Answers the partitions committed; the others
   * are fenced (zero rows updated: never acknowledged). The rows are locked first in id order, as
   * every statement updating several of this worker's partitions does (`partition-row-locks.ts`).
   */
  async commit(objectKey: string, entries: readonly CommitEntry[]): Promise<Set<string>> {
    if (entries.length === 0) return new Set();
    const result = await this.pool.query<{ partitionId: string }>({
      name: "lastword_manifest_commit",
      text: `WITH input AS (
               SELECT * FROM unnest($3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::bool[])
                 AS i("partitionId", "epoch", "baseOffset", "lastOffset", "position", "byteSize", "sha256", "startsSegment")
             ), locked AS MATERIALIZED (
               SELECT p."id" FROM "Partition" p
               WHERE p."id" = ANY($3::text[]) AND p."ownerWorkerId" = $1
               ORDER BY p."id" FOR NO KEY UPDATE OF p
             ), moved AS (
               UPDATE "Partition" p SET "durableEndOffset" = i."lastOffset" + 1
               FROM locked l JOIN input i ON i."partitionId" = l."id"
               WHERE p."id" = l."id" AND p."ownerWorkerId" = $1 AND p."leaseEpoch" = i."epoch"
                 AND p."durableEndOffset" = i."baseOffset"
               RETURNING i.*
             )
             INSERT INTO "PartitionObject"
               ("partitionId", "kind", "objectKey", "position", "byteSize", "sha256", "baseOffset", "lastOffset", "epoch", "startsSegment")
             SELECT m."partitionId", 'commit', $2, m."position", m."byteSize", m."sha256", m."baseOffset", m."lastOffset", m."epoch", m."startsSegment"
             FROM moved m
             RETURNING "partitionId"`,
      values: [
        this.workerId,
        objectKey,
        ...unnestColumns(entries, [
          "partitionId",
          "epoch",
          "baseOffset",
          "lastOffset",
          "position",
          "byteSize",
          "sha256",
          "startsSegment",
        ]),
      ],
    });
    return new Set(result.rows.map((row) => row.partitionId));
  }

  /**
   * For partitions whose commit moved nothing: the durable end of each one this worker still holds
   * at that epoch (an earlier commit whose answer was lost moved it already). The others are fenced.
   */
  async heldEnds(
    entries: readonly Pick<CommitEntry, "partitionId" | "epoch">[],
  ): Promise<Map<string, number>> {
    if (entries.length === 0) return new Map();
    const result = await this.pool.query<{ id: string; end: string }>(
      `SELECT p."id", p."durableEndOffset" AS "end"
       FROM "Partition" p JOIN unnest($2::text[], $3::int[]) AS i("partitionId", "epoch") ON p."id" = i."partitionId"
       WHERE p."ownerWorkerId" = $1 AND p."leaseEpoch" = i."epoch" AND p."durableEndOffset" IS NOT NULL`,
      [this.workerId, entries.map((e) => e.partitionId), entries.map((e) => e.epoch)],
    );
    return new Map(result.rows.map((row) => [row.id, Number(row.end)]));
  }

  /** Records that this worker's disk holds a copy of the partition (see PartitionCache). */
  async registerCache(partitionId: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO "PartitionCache" ("partitionId", "workerId") VALUES ($1, $2)
       ON CONFLICT ("partitionId", "workerId") DO NOTHING`,
      [partitionId, this.workerId],
    );
  }

  /** Records that this worker's copy of the partition is gone. */
  async forgetCache(partitionId: string): Promise<void> {
    await this.pool.query(`DELETE FROM "PartitionCache" WHERE "partitionId" = $1 AND "workerId" = $2`, [
      partitionId,
      this.workerId,
    ]);
  }

  /** Which of these object keys a manifest row still names. */
  async referenced(objectKeys: readonly string[]): Promise<Set<string>> {
    if (objectKeys.length === 0) return new Set();
    const result = await this.pool.query<{ objectKey: string }>(
      `SELECT DISTINCT "objectKey" FROM "PartitionObject" WHERE "objectKey" = ANY($1::text[])`,
      [objectKeys],
    );
    return new Set(result.rows.map((row) => row.objectKey));
  }
}

/** A partition's manifest as of one read (`client` may be a transaction's, its rows then locked by it). */
export async function loadManifest(
  client: Pick<pg.Pool, "query">,
  partitionId: string,
  lock = false,
): Promise<PartitionManifest> {
  const partition = await client.query<{ end: string | null; start: string | null }>(
    `SELECT "durableEndOffset" AS "end", "durableStartOffset" AS "start" FROM "Partition" WHERE "id" = $1`,
    [partitionId],
  );
  const end = partition.rows[0]?.end ?? null;
  const start = partition.rows[0]?.start ?? null;
  const rows = await client.query<
    Record<Exclude<keyof ManifestRow, "stats" | "createdAtMs" | "startsSegment">, string> & {
      stats: unknown;
      createdAt: Date;
      startsSegment: boolean;
    }
  >(
    `SELECT "kind", "objectKey", "position", "byteSize", "sha256", "baseOffset", "lastOffset", "epoch",
            "stats", "createdAt", "startsSegment"
     FROM "PartitionObject" WHERE "partitionId" = $1 ORDER BY "baseOffset"${lock ? " FOR UPDATE" : ""}`,
    [partitionId],
  );
  return {
    durableEndOffset: end === null ? null : Number(end),
    durableStartOffset: start === null ? null : Number(start),
    rows: rows.rows.map((row) => ({
      kind: row.kind as ManifestRow["kind"],
      objectKey: row.objectKey,
      position: Number(row.position),
      byteSize: Number(row.byteSize),
      sha256: row.sha256,
      baseOffset: Number(row.baseOffset),
      lastOffset: Number(row.lastOffset),
      epoch: Number(row.epoch),
      stats: row.kind === "segment" ? parseSegmentObjectStats(row.stats) : null,
      createdAtMs: row.createdAt.getTime(),
      startsSegment: row.startsSegment,
    })),
  };
}
