import { Prisma, type PrismaClient } from "@lastword/db";
import { isDatabaseUnreachable } from "../errors/database-unavailable";
import { perOwner } from "./per-owner";

/** One `UsageCounter` row's increment (its primary key and the amount to add). */
export interface UsageIncrement {
  tenantId: string;
  metric: string;
  day: Date;
  value: bigint;
}

/**
 * How soon after a produce its usage is written: increments of every produce within this window
 * share one flush (write-behind: a produce never waits for its usage). A web process that dies
 * loses at most this window of usage counts (and, during an outage, what is spooled), never records.
 */
export const USAGE_FLUSH_DELAY_MS = 100;
/** How often a backlog is retried while the database is unreachable. */
export const USAGE_FLUSH_INTERVAL_MS = 1_000;
/**
 * Distinct (tenant, metric, day) rows a process keeps while the database is away. Increments to
 * one row merge, so this is tenants × metrics × days, not requests; past it new rows are dropped
 * (counted in `dropped`), never the produce.
 */
export const MAX_SPOOLED_ROWS = 10_000;

interface Uncertain {
  /** The transaction that may or may not have committed `rows` (its COMMIT got no answer). */
  txid: string;
  rows: UsageIncrement[];
}

/**
 * True when Postgres itself answered the statement with an error (a SQLSTATE outside the
 * connection classes), as opposed to the connection or Prisma failing around it: only then would
 * the same rows be refused again.
 */
function refusedByServer(error: unknown): boolean {
  if (isDatabaseUnreachable(error)) return false;
  const queue: unknown[] = [error];
  for (let hops = 0; queue.length > 0 && hops < 8; hops++) {
    const next = queue.shift();
    if (typeof next !== "object" || next === null) continue;
    const record = next as Record<string, unknown>;
    const sqlState =
      record.originalCode ?? (typeof record.severity === "string" || record.kind ? record.code : undefined);
    if (typeof sqlState === "string" && /^[0-9A-Z]{5}$/.test(sqlState)) return true;
    queue.push(record.cause, (record.meta as Record<string, unknown> | undefined)?.driverAdapterError);
  }
  return false;
}

function rowKey(row: UsageIncrement): string {
  return `${row.tenantId}\u0000${row.metric}\u0000${row.day.toISOString()}`;
}

/**
 * The process's usage counters on their way to Postgres (write-behind). Increments merge per row
 * and are flushed USAGE_FLUSH_DELAY_MS after the first of them, so produces close together share
 * one write and none waits for it. A flush writes in one transaction whose statement returns the
 * transaction id, so when the connection is lost before COMMIT is answered the next flush asks
 * Postgres (`txid_status`) whether it committed, instead of guessing: a row is neither lost nor
 * added twice. While a flush fails, the rows stay here and a timer retries every
 * USAGE_FLUSH_INTERVAL_MS until they are written.
 */
export class UsageSpool {
  readonly #prisma: PrismaClient;
  readonly #pending = new Map<string, UsageIncrement>();
  #uncertain: Uncertain[] = [];
  #tail: Promise<void> = Promise.resolve();
  #queued: Promise<void> | null = null;
  #soon: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;
  #backlog = false;
  /** Increments refused because MAX_SPOOLED_ROWS rows were already waiting. */
  dropped = 0;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** True while a failed flush left rows unwritten (retried every USAGE_FLUSH_INTERVAL_MS). */
  get backlogged(): boolean {
    return this.#backlog;
  }

  /** Rows waiting to be written, plus rows whose last write may or may not have committed. */
  get waiting(): number {
    return this.#pending.size + this.#uncertain.reduce((n, u) => n + u.rows.length, 0);
  }

  /** Adds increments, to be written within USAGE_FLUSH_DELAY_MS (or when the database returns). */
  add(rows: UsageIncrement[]): void {
    for (const row of rows) this.#merge(row);
    if (this.#backlog) this.#scheduleRetry();
    else if (!this.#soon) {
      // Not unref'd: a process that finishes right after a produce still writes its usage.
      this.#soon = setTimeout(() => {
        this.#soon = null;
        void this.flush();
      }, USAGE_FLUSH_DELAY_MS);
    }
  }

  /**
   * Writes everything added so far (a flush already running may have taken its rows before the
   * latest were added: one more is queued behind it, shared by every caller until it starts).
   */
  flush(): Promise<void> {
    if (this.#queued) return this.#queued;
    const queued = this.#tail.then(() => {
      this.#queued = null;
      return this.#flushOnce();
    });
    this.#queued = queued;
    this.#tail = queued;
    return queued;
  }

  /** Flushes until nothing waits or `timeoutMs` passes; stops the retry timer. True when all was written. */
  async drain(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    if (this.#soon) clearTimeout(this.#soon);
    this.#soon = null;
    for (;;) {
      await this.flush();
      if (this.waiting === 0 || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, deadline - Date.now())));
    }
    if (this.#retry) clearInterval(this.#retry);
    this.#retry = null;
    return this.waiting === 0;
  }

  #merge(row: UsageIncrement): void {
    if (row.value === 0n) return;
    const key = rowKey(row);
    const existing = this.#pending.get(key);
    if (existing) existing.value += row.value;
    else if (this.#pending.size < MAX_SPOOLED_ROWS) this.#pending.set(key, { ...row });
    else this.dropped++;
  }

  #scheduleRetry(): void {
    if (this.#retry) return;
    this.#retry = setInterval(() => {
      void this.flush();
    }, USAGE_FLUSH_INTERVAL_MS);
    // A backlog must not keep a finished process alive; drain() is the graceful path.
    this.#retry.unref();
  }

  async #flushOnce(): Promise<void> {
    const written = (await this.#settleUncertain()) && (await this.#writePending());
    this.#backlog = !written;
    if (written && this.#retry) {
      clearInterval(this.#retry);
      this.#retry = null;
    } else if (!written) {
      this.#scheduleRetry();
    }
  }

  /** Resolves earlier flushes whose COMMIT went unanswered. False while any is still unknown. */
  async #settleUncertain(): Promise<boolean> {
    const open: Uncertain[] = [];
    for (const [index, entry] of this.#uncertain.entries()) {
      let status: string | null;
      try {
        const rows = await this.#prisma.$queryRaw<{ status: string | null }[]>`
          SELECT txid_status(${entry.txid}::bigint) AS status`;
        status = rows[0]?.status ?? null;
      } catch {
        this.#uncertain = [...open, ...this.#uncertain.slice(index)];
        return false;
      }
      // "in progress": the server has not yet noticed the dropped connection; ask again later.
      if (status === "in progress") open.push(entry);
      // "aborted": nothing of it counted, so it goes again. (null = older than Postgres keeps
      // commit status for, ~billions of transactions later; not reachable within an outage.)
      else if (status === "aborted") for (const row of entry.rows) this.#merge(row);
    }
    this.#uncertain = open;
    return open.length === 0;
  }

  /** Writes the pending rows in one transaction. False when they are still waiting (or unsure). */
  async #writePending(): Promise<boolean> {
    if (this.#pending.size === 0) return true;
    const rows = [...this.#pending.values()];
    this.#pending.clear();
    let txid: string | null = null;
    let refused: unknown = null;
    try {
      await this.#prisma.$transaction(async (tx) => {
        const values = rows.map((r) => Prisma.sql`(${r.tenantId}, ${r.metric}, ${r.day}, ${r.value})`);
        try {
          // The id comes back with the statement's answer, before COMMIT is sent: no answer, no COMMIT.
          const written = await tx.$queryRaw<{ id: string }[]>`
            INSERT INTO "UsageCounter" ("organizationId", "metric", "day", "value") VALUES ${Prisma.join(values)}
            ON CONFLICT ("organizationId", "metric", "day") DO UPDATE SET "value" = "UsageCounter"."value" + EXCLUDED."value"
            RETURNING txid_current()::text AS id`;
          txid = written[0]!.id;
        } catch (error) {
          if (refusedByServer(error)) refused = error;
          throw error;
        }
      });
      return true;
    } catch {
      if (refused !== null) {
        // The database answered and refused the statement: the same rows would be refused again.
        console.error("usage counters refused by the database; dropped", {
          rows: rows.length,
          error: refused,
        });
        return true;
      }
      // Without a transaction id COMMIT was never sent (nothing committed); with one, Postgres decides.
      if (txid === null) for (const row of rows) this.#merge(row);
      else this.#uncertain.push({ txid, rows });
      return false;
    }
  }
}

/** The spool of a database (one per PrismaClient, shared by every server built on it). */
export const usageSpool = perOwner((prisma: PrismaClient) => new UsageSpool(prisma));
