import { Prisma, type PrismaClient } from "@lastword/db";
import type { Logger } from "../logger";

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

/** How often a holder renews: three times a lease's length, so two renewals may fail before it lapses. */
export function renewIntervalMs(ttlMs: number): number {
  return Math.max(100, Math.floor(ttlMs / 3));
}

/**
 * Runs `renew` every renewal interval of a `ttlMs` lease; a failed run is logged as `what` failing
 * and the next one tries again. The timer keeps no process alive.
 */
export function renewalTimer(
  ttlMs: number,
  renew: () => Promise<void>,
  logger: Logger,
  what: string,
): NodeJS.Timeout {
  const timer = setInterval(() => {
    renew().catch((error: unknown) => logger.warn({ err: error }, `${what} failed`));
  }, renewIntervalMs(ttlMs));
  timer.unref();
  return timer;
}
