import {
  type CleanPartitionPayload,
  cleanerPriority,
  cleanPartitionJob,
  retainPartitionJob,
  schedulerTickJob,
  workerQueueNames,
} from "@lastword/jobs";
import type { Clock } from "@lastword/logstore";
import { type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { PartitionHost } from "../hosting/partition-host";
import type { Logger } from "../logger";
import type { WorkerMetrics } from "../metrics/metrics";
import type { PartitionStatsRepository } from "../metrics/partition-stats.repository";
import type { CleanerHealthBook } from "./cleaner-health";
import type { CleanerPasses } from "./cleaner-pass";
import { cleanJobFor, planTick } from "./cleaner-planner";

export interface CleanerSchedulerOptions {
  redisUrl: string;
  redisPrefix: string;
  workerId: string;
  tickMs: number;
  /** Concurrent passes on this worker (Kafka's log.cleaner.threads); they split the dedupe budget. */
  cleanerThreads: number;
  host: PartitionHost;
  health: CleanerHealthBook;
  passes: CleanerPasses;
  stats: PartitionStatsRepository;
  metrics: WorkerMetrics;
  logger: Logger;
  /** Pending erasure tombstones: verified, and their passes forced, on every tick (erasure-guard.ts). */
  erasure?: { tick(nowMs: number): Promise<void> };
  /**
   * What plans and the Redis-warning throttle read as now (the worker's clock, as its logs and
   * passes). The tick cadence and the watchdog are real timers: they pace work, and the watchdog
   * counts its own intervals rather than reading a time.
   */
  clock: Clock;
}

const TICK_SCHEDULER_ID = "tick";
const REDIS_WARN_INTERVAL_MS = 30_000;
/** Watchdog intervals (each one tick long) without a tick before the scheduler is re-created. */
const MISSED_TICKS_MAX = 3;

/**
 * BullMQ wiring for this worker's background work. A job scheduler (`upsertJobScheduler`) ticks every
 * `tickMs`; each tick plans from the logs' own state and enqueues one job per due partition (jobId =
 * partition, so a waiting or running pass is never doubled). Because every tick re-derives what is
 * due, nothing is lost while Redis is away: the next tick after it returns enqueues it again. A
 * watchdog re-creates the scheduler if ticks stop (Redis restarted without its data).
 */
export class CleanerScheduler {
  readonly #o: CleanerSchedulerOptions;
  readonly #connection: Redis;
  readonly #schedulerQueue: Queue;
  readonly #cleanerQueue: Queue;
  #schedulerWorker: Worker | null = null;
  #cleanerWorker: Worker | null = null;
  #watchdog: NodeJS.Timeout | null = null;
  /** Watchdog intervals since the last tick ran. */
  #intervalsSinceTick = 0;
  #lastRedisWarnAtMs = Number.NEGATIVE_INFINITY;
  #suppressedErrors = 0;

  constructor(options: CleanerSchedulerOptions) {
    this.#o = options;
    const names = workerQueueNames(options.workerId);
    this.#connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    this.#connection.on("error", (error) => this.#redisTrouble("redis error", error));
    const queueOptions = { connection: this.#connection, prefix: options.redisPrefix };
    this.#schedulerQueue = new Queue(names.scheduler, queueOptions);
    this.#cleanerQueue = new Queue(names.cleaner, queueOptions);
    for (const queue of [this.#schedulerQueue, this.#cleanerQueue]) {
      queue.on("error", (error) => this.#redisTrouble("queue error", error));
    }
  }

  /** Starts processing and the tick; does not wait for Redis (produce and fetch never need it). */
  start(): void {
    const { redisPrefix, cleanerThreads } = this.#o;
    const names = workerQueueNames(this.#o.workerId);
    const workerOptions = { connection: this.#connection, prefix: redisPrefix };
    this.#schedulerWorker = new Worker(names.scheduler, () => this.#tick(), {
      ...workerOptions,
      concurrency: 1,
    });
    this.#cleanerWorker = new Worker(names.cleaner, (job) => this.#process(job), {
      ...workerOptions,
      concurrency: cleanerThreads,
    });
    for (const worker of [this.#schedulerWorker, this.#cleanerWorker]) {
      worker.on("error", (error) => this.#redisTrouble("job worker error", error));
    }
    this.#o.host.onRoll((partitionId) => void this.#checkNow(partitionId));
    void this.#ensureTick();
    this.#watchdog = setInterval(() => {
      if (++this.#intervalsSinceTick > MISSED_TICKS_MAX) void this.#ensureTick();
    }, this.#o.tickMs);
    this.#watchdog.unref();
  }

  /** A pass asked for by a person (console/API): clears an uncleanable hold and runs even if not due. */
  async requestClean(partitionId: string, epoch: number): Promise<void> {
    this.#o.health.forgive(partitionId);
    await this.#addClean({ partitionId, epoch, reason: "requested", dirtyRatio: 0 });
  }

  /** Takes no more jobs and waits for the running passes (shutdown, before the logs close). */
  async stopWorking(): Promise<void> {
    if (this.#watchdog) clearInterval(this.#watchdog);
    await Promise.all([this.#schedulerWorker?.close(), this.#cleanerWorker?.close()]);
  }

  /** Workers first (running passes finish or abort), then the tick and the queues, then Redis. */
  async stop(): Promise<void> {
    await this.stopWorking();
    await this.#schedulerQueue.removeJobScheduler(TICK_SCHEDULER_ID).catch(() => false);
    await Promise.all([
      this.#schedulerQueue.obliterate({ force: true }),
      this.#cleanerQueue.obliterate({ force: true }),
    ]).catch((error: Error) =>
      this.#o.logger.warn({ err: error.message }, "could not remove this worker's queues"),
    );
    await Promise.all([this.#schedulerQueue.close(), this.#cleanerQueue.close()]);
    this.#connection.disconnect();
  }

  /** As if the process died (in-process kill): no cleanup of the queues, connections dropped. */
  async halt(): Promise<void> {
    if (this.#watchdog) clearInterval(this.#watchdog);
    await Promise.all([this.#schedulerWorker?.close(true), this.#cleanerWorker?.close(true)]);
    await Promise.all([this.#schedulerQueue.close(), this.#cleanerQueue.close()]);
    this.#connection.disconnect();
  }

  /** Redis being away makes every connection complain on each retry: log one line per 30 s. */
  #redisTrouble(what: string, error: Error): void {
    const now = this.#o.clock.now();
    this.#suppressedErrors++;
    if (now - this.#lastRedisWarnAtMs < REDIS_WARN_INTERVAL_MS) return;
    this.#o.logger.warn({ err: error.message, similar: this.#suppressedErrors }, what);
    this.#lastRedisWarnAtMs = now;
    this.#suppressedErrors = 0;
  }

  async #ensureTick(): Promise<void> {
    try {
      await this.#schedulerQueue.upsertJobScheduler(
        TICK_SCHEDULER_ID,
        { every: this.#o.tickMs },
        { name: schedulerTickJob.name, data: {}, opts: schedulerTickJob.options },
      );
    } catch (error) {
      this.#o.logger.warn({ err: (error as Error).message }, "could not (re)create the scheduler tick");
    }
  }

  async #tick(): Promise<void> {
    const { host, health, passes, stats, metrics, workerId, logger } = this.#o;
    this.#intervalsSinceTick = 0;
    const endTimer = metrics.schedulerTickSeconds.startTimer();
    const cpuAtStart = process.cpuUsage();
    const plan = await planTick({
      host,
      health,
      lastCleanAt: passes.lastCleanAt,
      workerId,
      logger,
      nowMs: this.#o.clock.now(),
    });
    const byRatio = [...plan.clean].sort(
      (a, b) => cleanerPriority(a.reason, a.dirtyRatio) - cleanerPriority(b.reason, b.dirtyRatio),
    );
    await Promise.all(byRatio.map((payload) => this.#addClean(payload)));
    await Promise.all(
      plan.retain.map((payload) =>
        this.#cleanerQueue.add(retainPartitionJob.name, payload, {
          ...retainPartitionJob.options,
          jobId: retainPartitionJob.jobId(payload),
          priority: 1,
        }),
      ),
    );
    await this.#o.erasure
      ?.tick(this.#o.clock.now())
      .catch((error: Error) => logger.warn({ err: error.message }, "erasure guard tick failed"));
    this.#updateGauges(plan.stats);
    endTimer();
    const cpu = process.cpuUsage(cpuAtStart);
    metrics.schedulerTickCpuSeconds.observe((cpu.user + cpu.system) / 1e6);
    await stats
      .save(plan.stats)
      .catch((error: Error) => logger.warn({ err: error.message }, "could not save stats"));
  }

  /** Between ticks: a roll just closed a segment, so the partition may be cleanable now. */
  async #checkNow(partitionId: string): Promise<void> {
    const { host, health, logger } = this.#o;
    const slot = host.slot(partitionId);
    if (slot?.state !== "open") return;
    try {
      const { job } = await slot.use(
        async (log) => cleanJobFor(slot, log, health, this.#o.clock.now()),
        "background",
      );
      if (job) await this.#addClean(job);
    } catch (error) {
      logger.debug({ partitionId, err: error }, "could not check a rolled partition; the tick will");
    }
  }

  #addClean(payload: CleanPartitionPayload): Promise<unknown> {
    return this.#cleanerQueue.add(cleanPartitionJob.name, payload, {
      ...cleanPartitionJob.options,
      jobId: cleanPartitionJob.jobId(payload),
      priority: cleanerPriority(payload.reason, payload.dirtyRatio),
    });
  }

  async #process(job: Job): Promise<unknown> {
    if (job.name === cleanPartitionJob.name)
      return this.#o.passes.clean(cleanPartitionJob.schema.parse(job.data));
    if (job.name === retainPartitionJob.name)
      return this.#o.passes.retain(retainPartitionJob.schema.parse(job.data));
    throw new Error(`unknown job ${job.name}`);
  }

  #updateGauges(
    stats: ReadonlyMap<string, { dirtyRatio: number; maxCompactionDelayMs: number; sizeBytes: number }>,
  ): void {
    const { metrics, health } = this.#o;
    let maxDirty = 0;
    let maxDelayMs = 0;
    for (const partition of stats.values()) {
      maxDirty = Math.max(maxDirty, partition.dirtyRatio);
      maxDelayMs = Math.max(maxDelayMs, partition.maxCompactionDelayMs);
    }
    const uncleanable = health.uncleanable();
    let uncleanableBytes = 0;
    for (const id of uncleanable.keys()) uncleanableBytes += stats.get(id)?.sizeBytes ?? 0;
    metrics.maxDirtyPercent.set(100 * maxDirty);
    metrics.maxCompactionDelaySecs.set(maxDelayMs / 1000);
    metrics.uncleanablePartitions.set(uncleanable.size);
    metrics.uncleanableBytes.set(uncleanableBytes);
  }
}
