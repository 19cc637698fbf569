import { Prisma } from "@lastword/db";
import pg from "pg";
import type { Logger } from "../logger";

/**
 * First key of every worker's session lock, `pg_advisory_lock(WORKER_SESSION_LOCK_CLASS, nodeId)`
 * ("LW" and 1). Prisma's migration lock is a one-key lock (objsubid 1), so the two never meet.
 */
export const WORKER_SESSION_LOCK_CLASS = 0x4c57_0001;

/** Where a worker that gave partitions back says so, so peers claim them at once rather than next tick. */
export const RELEASED_CHANNEL = "lastword_partitions_released";

/**
 * The node ids (as `oid`, pg_locks' objid) whose session lock some session of this database holds.
 * Postgres ends a backend and its locks as soon as the client's socket closes, so a worker killed
 * (SIGKILL, crash, OOM) drops out of this set within milliseconds, long before its leases expire.
 */
export const HELD_SESSIONS = Prisma.sql`(
  SELECT l."objid" FROM pg_locks l
  WHERE l."locktype" = 'advisory' AND l."granted" AND l."objsubid" = 2
    AND l."classid" = ${Prisma.raw(String(WORKER_SESSION_LOCK_CLASS))}::oid
    AND l."database" = (SELECT d."oid" FROM pg_database d WHERE d."datname" = current_database()))`;

/** Workers that registered with a session lock and no longer hold it: dead, whatever their leases say. */
export const ENDED_SESSIONS = Prisma.sql`(
  SELECT w."id" FROM "Worker" w
  WHERE w."sessionLock" AND w."nodeId"::oid NOT IN ${HELD_SESSIONS})`;

export interface WorkerSessionOptions {
  databaseUrl: string;
  nodeId: number;
  logger: Logger;
  /** A peer released partitions (NOTIFY on RELEASED_CHANNEL): claim now. */
  onReleased: () => void;
  /** Between attempts to (re)connect and take the lock. */
  retryMs?: number;
}

/**
 * This worker's session: one plain connection holding its session lock and listening for released
 * partitions. It is what peers read to tell a live worker from a dead one (ENDED_SESSIONS). The
 * lock is only a detector: a peer that finds it free claims through the ordinary claim statement,
 * which bumps the lease epoch, and every write is fenced by owner and epoch as before, so a worker
 * declared dead while in fact alive (its session dropped) can no longer write and closes the
 * partitions at its next renewal. When the connection drops this reconnects and locks again.
 */
export class WorkerSession {
  readonly #o: WorkerSessionOptions;
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;
  /** performance.now() when the lock was taken; null while not held. */
  #lockedAt: number | null = null;

  constructor(options: WorkerSessionOptions) {
    this.#o = options;
  }

  /** How long this worker has held its session lock without a break (0 while it does not). */
  heldForMs(): number {
    return this.#lockedAt === null ? 0 : performance.now() - this.#lockedAt;
  }

  /** Connects and takes the lock; on failure retries in the background (the TTL still covers us). */
  async open(): Promise<void> {
    await this.#attempt();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    this.#lockedAt = null;
    await client?.end().catch(() => undefined);
  }

  async #attempt(): Promise<void> {
    if (this.#closed) return;
    const { databaseUrl, nodeId, logger, onReleased } = this.#o;
    const client = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: 2_000,
      application_name: `lastword-worker-session-${nodeId}`,
    });
    const lost = (error?: Error) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#lockedAt = null;
      if (this.#closed) return;
      logger.warn(
        { err: error?.message },
        "worker session lost: peers may claim our partitions; reconnecting",
      );
      this.#later();
    };
    client.on("error", lost);
    client.on("end", () => lost());
    client.on("notification", () => onReleased());
    try {
      await client.connect();
      if (this.#closed) {
        await client.end();
        return;
      }
      // Postgres notices a vanished peer (machine lost, no FIN) by TCP keepalive: within about
      // 2 + 3 × 1 s instead of the kernel's two hours, and then drops the lock.
      await client.query(
        "SET tcp_keepalives_idle = 2; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3",
      );
      await client.query(`LISTEN ${RELEASED_CHANNEL}`);
      const result = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock($1::int, $2::int) AS locked",
        [WORKER_SESSION_LOCK_CLASS, nodeId],
      );
      if (!result.rows[0]!.locked) {
        // A previous process under this worker id whose backend Postgres has not ended yet.
        await client.end();
        logger.warn({ nodeId }, "worker session lock still held by an earlier session; retrying");
        this.#later();
        return;
      }
      this.#client = client;
      this.#lockedAt = performance.now();
      logger.debug({ nodeId }, "worker session lock taken");
    } catch (error) {
      await client.end().catch(() => undefined);
      logger.warn({ err: (error as Error).message }, "worker session could not be opened; retrying");
      this.#later();
    }
  }

  #later(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#attempt();
    }, this.#o.retryMs ?? 250);
    this.#retry.unref();
  }
}
