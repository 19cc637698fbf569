import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type { PrismaClient };

/** A Prisma 7 client over node-postgres; no engine binary is involved at run time. */
/**
 * How long opening a connection may take. node-postgres waits forever by default, so a database
 * that drops packets (rather than refusing) would hang every lookup instead of failing it; failing
 * lets the API serve its cached answers and answer 503 DATABASE_UNAVAILABLE for the rest.
 */
const CONNECT_TIMEOUT_MS = 5_000;

export function createPrisma(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  return new PrismaClient({ adapter });
}
