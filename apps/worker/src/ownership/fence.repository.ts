import { WorkerPoolRepository } from "./bounded-pool";

const FENCE_TIMEOUT_MS = 2_000;

/**
 * The fencing check every write passes, on its own small node-postgres pool: it runs once per
 * produce, and a prepared statement on a plain connection costs a fraction of a Prisma round trip.
 */
export class FenceRepository extends WorkerPoolRepository {
  constructor(databaseUrl: string, workerId: string, maxConnections = 4) {
    // An unreachable database fails the check (the storage fence then decides).
    super(databaseUrl, workerId, maxConnections, FENCE_TIMEOUT_MS);
  }

  /** True only if the lease is ours, at `epoch`, and valid for at least `marginMs` more (database clock). */
  async holds(partitionId: string, epoch: number, marginMs: number): Promise<boolean> {
    const result = await this.pool.query({
      name: "lastword_fence",
      text: `SELECT 1 FROM "Partition"
             WHERE "id" = $1 AND "ownerWorkerId" = $2 AND "leaseEpoch" = $3
               AND "leaseExpiresAt" > (now() AT TIME ZONE 'UTC') + ($4::int * interval '1 millisecond')`,
      values: [partitionId, this.workerId, epoch, Math.round(marginMs)],
    });
    return result.rowCount === 1;
  }
}
