import { Prisma, type PrismaClient } from "@lastword/db";

// Every lease time is the database's clock, in UTC like the rest of the timestamp(3) columns, so
// workers with skewed clocks still agree on who holds what.
export const DB_NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
export const dbInterval = (ms: number) => Prisma.sql`(${Math.round(ms)}::int * interval '1 millisecond')`;

/** What every lease table's repository holds: the database, this worker's id and the lease's length. */
export abstract class LeaseHolder {
  protected readonly prisma: PrismaClient;
  protected readonly workerId: string;
  protected readonly ttlMs: number;

  constructor(prisma: PrismaClient, workerId: string, ttlMs: number) {
    this.prisma = prisma;
    this.workerId = workerId;
    this.ttlMs = ttlMs;
  }
}
