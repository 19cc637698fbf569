import pg from "pg";

/**
 * A small node-postgres pool of its own for a statement on a write's path (the fencing check, the
 * manifest commit): it must not queue behind Prisma's pool, and every wait is bounded so an
 * unreachable database fails the statement instead of holding the write.
 */
export function boundedPool(databaseUrl: string, maxConnections: number, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: maxConnections,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // An idle client's error (database restarted) must not crash the worker; the next query reconnects.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * A repository that writes as one worker on a bounded pool of its own (the fencing check, the
 * manifest commit, the manifest changes): each statement's lease condition names `workerId`, and
 * close() ends the pool with the worker.
 */
export abstract class WorkerPoolRepository {
  protected readonly pool: pg.Pool;
  protected readonly workerId: string;

  constructor(databaseUrl: string, workerId: string, maxConnections: number, timeoutMs: number) {
    this.pool = boundedPool(databaseUrl, maxConnections, timeoutMs);
    this.workerId = workerId;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
