import { DataPlaneError } from "./errors";

/**
 * What the owner lookup needs of a database: one tagged-template SQL query. The Prisma client of
 * `@lastword/db` is one; the data plane takes it from its caller rather than depending on the
 * package, so the protocol's home carries no database client.
 */
export interface LeaseTable {
  $queryRaw<T>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
}

/** Where a partition lives right now: the lease holder, its fencing epoch and its data-plane URL. */
export interface PartitionOwner {
  partitionId: string;
  workerId: string;
  epoch: number;
  address: string;
}

interface OwnerRow {
  workerId: string | null;
  epoch: number;
  address: string | null;
  live: boolean;
}

export const OWNER_POLL_INTERVAL_MS = 100;

/**
 * Resolves partition → owner from Postgres (Partition.ownerWorkerId → Worker.address) and caches the
 * answer until a call through it fails; the lease table is the only source of truth.
 */
export class OwnerDirectory {
  readonly #prisma: LeaseTable;
  readonly #cache = new Map<string, PartitionOwner>();

  constructor(prisma: LeaseTable) {
    this.#prisma = prisma;
  }

  invalidate(partitionId: string): void {
    this.#cache.delete(partitionId);
  }

  /**
   * The current live owner, waiting until `deadlineMs` (epoch ms) for one to claim the partition.
   * `notOwner` names an owner that just failed us: it is skipped until the lease moves on.
   */
  async resolve(partitionId: string, deadlineMs: number, notOwner?: PartitionOwner): Promise<PartitionOwner> {
    const cached = this.#cache.get(partitionId);
    if (cached && !notOwner) return cached;
    for (;;) {
      const owner = await this.#lookup(partitionId);
      if (owner && !(notOwner && sameOwner(owner, notOwner))) {
        this.#cache.set(partitionId, owner);
        return owner;
      }
      if (Date.now() + OWNER_POLL_INTERVAL_MS > deadlineMs) {
        throw new DataPlaneError(
          "PARTITION_UNAVAILABLE",
          `partition ${partitionId} has no live owner yet; a worker claims it within a few seconds, try again`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, OWNER_POLL_INTERVAL_MS));
    }
  }

  async #lookup(partitionId: string): Promise<PartitionOwner | null> {
    const rows = await this.#prisma.$queryRaw<OwnerRow[]>`
      SELECT p."ownerWorkerId" AS "workerId", p."leaseEpoch" AS "epoch", w."address" AS "address",
             (p."leaseExpiresAt" IS NOT NULL AND p."leaseExpiresAt" > (now() AT TIME ZONE 'UTC')
              AND w."stoppedAt" IS NULL) AS "live"
      FROM "Partition" p LEFT JOIN "Worker" w ON w."id" = p."ownerWorkerId"
      WHERE p."id" = ${partitionId}`;
    const row = rows[0];
    if (!row) throw new DataPlaneError("PARTITION_NOT_FOUND", `partition ${partitionId} does not exist`);
    if (!row.live || row.workerId === null || row.address === null) return null;
    return { partitionId, workerId: row.workerId, epoch: row.epoch, address: row.address };
  }
}

function sameOwner(a: PartitionOwner, b: PartitionOwner): boolean {
  return a.workerId === b.workerId && a.epoch === b.epoch;
}
