import type { PrismaClient } from "@lastword/db";
import { DB_NOW } from "../../ownership/lease-holder";

/** Kafka's `transactional.id.expiration.ms` default: 7 days. */
export const DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Kafka's transactional id expiry: a transactional id whose producer has sent nothing for
 * `expirationMs` and has no transaction in flight (Empty, CompleteCommit or CompleteAbort) is
 * forgotten, with its producer id and epoch, once no coordinator holds its lease — an id in use
 * stays, since every transaction step stamps `updatedAt` (on the worker clock, `nowMs`). A
 * producer that comes back later is a new one (InitProducerId issues a fresh producer id), as on a
 * Kafka broker. Returns the rows removed.
 */
export async function expireTransactionalIds(
  prisma: PrismaClient,
  nowMs: number,
  expirationMs = DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS,
): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM "KafkaTransaction"
    WHERE "state" IN ('Empty', 'CompleteCommit', 'CompleteAbort')
      AND "updatedAt" <= ${new Date(nowMs - expirationMs)}
      AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" <= ${DB_NOW})`;
}
