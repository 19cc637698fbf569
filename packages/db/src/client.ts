import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type { PrismaClient };

/** A Prisma 7 client over node-postgres; no engine binary is involved at run time. */
/**
 * How long getting a connection may take. node-postgres waits forever by default, so a database
 * that drops packets (rather than refusing) would hang every lookup instead of failing it; failing
 * lets the API serve its cached answers and answer 503 DATABASE_UNAVAILABLE for the rest. pg-pool
 * counts the wait for a free pooled connection in it too, so it is long enough that a busy pool on
 * a loaded machine is not mistaken for an outage (5 s was, once, with every suite running at once).
 */
const CONNECT_TIMEOUT_MS = 15_000;

export function createPrisma(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  return new PrismaClient({ adapter });
}
