import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import type { InflateOutcome, InflateTask } from "./inflate-outcome";

export interface InflatePoolConfig {
  /** Threads that inflate batches (WORKER_INFLATE_THREADS). */
  threads: number;
  /** Batches waiting for a thread, worker-wide (WORKER_INFLATE_QUEUE); one more is answered "busy", not queued. */
  maxQueue: number;
}

/**
 * One thread fewer than the machine's cores (at least one): the event loop keeps a core to itself,
 * so a tenant's inflation competes with other inflation, never with everyone's requests.
 */
export const DEFAULT_INFLATE_POOL: InflatePoolConfig = {
  threads: Math.max(1, availableParallelism() - 1),
  maxQueue: 1_024,
};

/** What the pool answers when its queue is full: the produce is refused as retriable. */
export type PoolOutcome =
  | InflateOutcome
  | { ok: false; kind: "busy"; message: string; inflatedBytes: 0; threadMs: 0 };

// Run from source (`npm start`), the task is TypeScript and its threads load it through tsx, as
// the worker itself is loaded; run from a bundle (the test suite's build), it is the bundled
// `inflate-task.mjs` beside it.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const TASK = new URL(FROM_SOURCE ? "./inflate-task.ts" : "./inflate-task.mjs", import.meta.url).href;

/**
 * The worker's pool of inflate threads (piscina). Each tenant has at most `threads` batches in the
 * pool at once; its further batches wait in a queue of the tenant's own, so a tenant sending many
 * compressed batches waits behind itself, and another tenant's batch waits for at most one batch
 * per thread (each bounded by its tenant's maxBatchInflatedBytes).
 */
export class InflatePool {
  readonly config: InflatePoolConfig;
  readonly #pool: Piscina<InflateTask, InflateOutcome>;
  readonly #inPool = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(config: InflatePoolConfig = DEFAULT_INFLATE_POOL) {
    this.config = config;
    this.#pool = new Piscina({
      filename: TASK,
      minThreads: config.threads,
      maxThreads: config.threads,
      maxQueue: config.maxQueue,
      execArgv: FROM_SOURCE ? ["--import", "tsx"] : [],
    });
  }

  /** Batches queued for a thread right now (the pool's own queue, not the tenants' waits). */
  get queued(): number {
    return this.#pool.queueSize;
  }

  /**
   * The batch at the start of `batch` (whole, compressed) inflated in a pool thread, never past
   * `maxBytes`; without `values`, only its skeleton comes back (`InflateTask.values`).
   */
  async inflate(tenantId: string, batch: Buffer, maxBytes: number, values = true): Promise<PoolOutcome> {
    await this.#enter(tenantId);
    try {
      // Its own buffer, moved to the thread: a view would clone the whole request frame it lies in.
      const own = new Uint8Array(batch.length);
      own.set(batch);
      const task: InflateTask = { batch: own, maxBytes, values };
      return await this.#pool.run(task, { transferList: [own.buffer] });
    } catch (error) {
      if ((error as Error).message?.includes("Task queue is at limit")) {
        return {
          ok: false,
          kind: "busy",
          message: "this worker's inflate queue is full; retry",
          inflatedBytes: 0,
          threadMs: 0,
        };
      }
      throw error;
    } finally {
      this.#leave(tenantId);
    }
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }

  #enter(tenantId: string): Promise<void> | undefined {
    const held = this.#inPool.get(tenantId) ?? 0;
    if (held < this.config.threads) {
      this.#inPool.set(tenantId, held + 1);
      return undefined;
    }
    const queue = this.#waiting.get(tenantId) ?? [];
    this.#waiting.set(tenantId, queue);
    // Woken by #leave, which hands over its place rather than freeing it.
    return new Promise((resolve) => queue.push(resolve));
  }

  #leave(tenantId: string): void {
    const queue = this.#waiting.get(tenantId);
    const next = queue?.shift();
    if (queue?.length === 0) this.#waiting.delete(tenantId);
    if (next) {
      next();
      return;
    }
    const held = (this.#inPool.get(tenantId) ?? 1) - 1;
    if (held <= 0) this.#inPool.delete(tenantId);
    else this.#inPool.set(tenantId, held);
  }
}
