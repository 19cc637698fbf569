import type { PrismaClient } from "@lastword/db";

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

export class PartitionStatsRepository {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;

  constructor(prisma: PrismaClient, workerId: string) {
    this.#prisma = prisma;
    this.#workerId = workerId;
  }

  /** One statement for all of this worker's partitions; rows it no longer owns are left alone. */
  async save(stats: ReadonlyMap<string, PartitionStats>): Promise<void> {
    if (stats.size === 0) return;
    const ids = [...stats.keys()];
    const values = [...stats.values()].map((s) => JSON.stringify(s));
    await this.#prisma.$executeRaw`
      UPDATE "Partition" p SET "stats" = v."stats"
      FROM unnest(${ids}::text[], ${values}::jsonb[]) AS v("id", "stats")
      WHERE p."id" = v."id" AND p."ownerWorkerId" = ${this.#workerId}`;
  }
}
