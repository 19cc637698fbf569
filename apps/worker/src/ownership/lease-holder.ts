import { Prisma, type PrismaClient } from "@lastword/db";
import type { Logger } from "../logger";
import { ENDED_SESSIONS } from "./worker-session";

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

  /**
   * Claims the (tenant, `key`) row of a coordinator lease table when nobody holds a live lease on
   * it (free, expired, or its holder's session ended), bumping the epoch, or creates it at epoch 1.
   * Answers `columns` of the row with whether the lease is live (true once claimed here), or
   * undefined when there is no row.
   */
  protected async claimOrFindRow<T>(
    lease: LeaseKey,
    tenantId: string,
    key: string,
    columns: readonly string[],
  ): Promise<(T & { live: boolean }) | undefined> {
    const table = Prisma.raw(`"${lease.table}"`);
    const keyColumn = Prisma.raw(`"${lease.keyColumn}"`);
    const claimed = await this.prisma.$queryRaw<T[]>`
      INSERT INTO ${table} ("organizationId", ${keyColumn}, "ownerWorkerId", "epoch", "leaseExpiresAt")
      VALUES (${tenantId}, ${key}, ${this.workerId}, 1, ${DB_NOW} + ${dbInterval(this.ttlMs)})
      ON CONFLICT ("organizationId", ${keyColumn}) DO UPDATE
        SET "ownerWorkerId" = EXCLUDED."ownerWorkerId", "epoch" = ${table}."epoch" + 1,
            "leaseExpiresAt" = EXCLUDED."leaseExpiresAt"
        WHERE ${table}."ownerWorkerId" IS NULL OR ${table}."leaseExpiresAt" IS NULL
           OR ${table}."leaseExpiresAt" <= ${DB_NOW}
           OR (${table}."ownerWorkerId" <> ${this.workerId} AND ${table}."ownerWorkerId" IN ${ENDED_SESSIONS})
      RETURNING ${columnList(columns)}`;
    if (claimed[0]) return { ...claimed[0], live: true };
    const rows = await this.prisma.$queryRaw<(T & { live: boolean })[]>`
      SELECT ${columnList(columns)}, ("leaseExpiresAt" > ${DB_NOW}) AS "live"
      FROM ${table} WHERE "organizationId" = ${tenantId} AND ${keyColumn} = ${key}`;
    return rows[0];
  }
}

/** A coordinator lease table and the column naming what it leases within a tenant. */
export type LeaseKey =
  | { table: "KafkaGroup"; keyColumn: "groupId" }
  | { table: "KafkaTransaction"; keyColumn: "transactionalId" };

// Identifiers from this module's own literals only, never from input.
const columnList = (columns: readonly string[]) => Prisma.raw(columns.map((c) => `"${c}"`).join(", "));

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
