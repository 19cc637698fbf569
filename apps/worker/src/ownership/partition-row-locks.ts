import { Prisma } from "@lastword/db";

/**
 * A CTE `locked("id")` that locks, in id order, the Partition rows this worker owns (only `ids`
 * among them when given). Every statement updating several of one worker's partitions joins it, so
 * they all take their row locks in the same order and never wait on each other in a cycle (without
 * it two such statements abort one another with SQLSTATE 40P01). The lock order is the sort order:
 * with ORDER BY and FOR … UPDATE at one query level the plan locks each row as the sort returns it.
 * MATERIALIZED keeps it one scan ahead of the UPDATE that joins it. NO KEY UPDATE is what an UPDATE
 * of non-key columns takes anyway, so inserts referencing the row (foreign keys) are not blocked.
 * The manifest commit (durability/manifest.repository.ts) spells the same CTE in its pg statement.
 */
export function lockedOwnedPartitions(workerId: string, ids?: readonly string[]): Prisma.Sql {
  const only = ids === undefined ? Prisma.empty : Prisma.sql`AND "id" = ANY(${[...ids]}::text[])`;
  return Prisma.sql`"locked" AS MATERIALIZED (
    SELECT "id" FROM "Partition" WHERE "ownerWorkerId" = ${workerId} ${only}
    ORDER BY "id" FOR NO KEY UPDATE)`;
}
