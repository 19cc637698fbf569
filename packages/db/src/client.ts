import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client";

export type { PrismaClient };

/**
 * How long a caller waits for Postgres before its query fails (node-postgres waits forever by
 * default, so a database that accepts connections and then answers nothing — a frozen server, a
 * path dropping packets — would hang every request instead of failing it into the cached and
 * 503 DATABASE_UNAVAILABLE paths). Failed connections and timed-out queries leave the pool, so
 * nothing stays stuck once Postgres answers again.
 * - `connectMs`: one new connection, from TCP connect to ready for queries.
 * - `queryMs`: one statement's answer (client side: it also bounds a server that answers nothing;
 *   Prisma's interactive transactions have their own 5 s limit on top).
 * - `poolWaitMs`: the wait for a free pooled connection (pg-pool counts the new connection in it
 *   too). Longer, so a busy pool on a loaded machine is not mistaken for an outage (5 s was, once,
 *   with every suite running at once).
 * A request's one statement on a warm pool thus fails within `queryMs`, on a cold one within
 * `connectMs`; queued behind a full pool of stuck statements, within `poolWaitMs`.
 */
export const DATABASE_TIMEOUTS = { connectMs: 5_000, queryMs: 5_000, poolWaitMs: 15_000 } as const;

/** A pooled connection whose own connect gives up sooner than the pool's wait for one. */
class BoundedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    const base = typeof config === "string" ? { connectionString: config } : config;
    super({ ...base, connectionTimeoutMillis: DATABASE_TIMEOUTS.connectMs });
  }
}

/** A Prisma 7 client over node-postgres; no engine binary is involved at run time. */
export function createPrisma(databaseUrl: string, options: { maxConnections?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: DATABASE_TIMEOUTS.poolWaitMs,
    query_timeout: DATABASE_TIMEOUTS.queryMs,
    Client: BoundedClient as unknown as new () => pg.ClientBase,
  });
  return new PrismaClient({ adapter });
}
