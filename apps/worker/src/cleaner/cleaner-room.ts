import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { CrashHook } from "../fault-points";
import type { PartitionHost } from "../hosting/partition-host";
import type { TombstoneAudit } from "../hosting/tombstone-audit";
import type { Logger } from "../logger";
import type { WorkerMetrics } from "../metrics/metrics";
import { PartitionStatsRepository } from "../metrics/partition-stats.repository";
import { CLEANER_MAX_ATTEMPTS, CleanerHealthBook } from "./cleaner-health";
import { CleanerPasses } from "./cleaner-pass";
import { CleanerRunRepository } from "./cleaner-run.repository";
import { CleanerScheduler, type CleanerSchedulerOptions } from "./cleaner-scheduler";

export interface CleanerScheduling {
  redisUrl: string;
  redisPrefix: string;
  tickMs: number;
  cleanerThreads?: number;
  /** First retry delay after a failed pass (doubles per failure; held after CLEANER_MAX_ATTEMPTS). */
  cleanerBackoffBaseMs?: number;
}

export interface CleanerDeps {
  prisma: PrismaClient;
  workerId: string;
  host: PartitionHost;
  audit: TombstoneAudit;
  metrics: WorkerMetrics;
  logger: Logger;
  clock: Clock;
  fault: CrashHook | undefined;
  /** A pass changed a partition's files (the object store's tiering looks again). */
  filesChanged: (partitionId: string) => void;
  /** Without it passes run only when requested, here and now. */
  scheduling: CleanerScheduling | undefined;
}

/** What the rest of the worker sees of the cleaner (the data plane's cleaner routes). */
export interface Cleaner {
  passes: CleanerPasses;
  scheduler: CleanerScheduler | null;
  health: CleanerHealthBook;
  lastCleanAt: ReadonlyMap<string, number>;
  /** Enqueues (or, without scheduling, runs) a pass now for a partition held at `epoch`. */
  requestClean(partitionId: string, epoch: number): Promise<void>;
}

/**
 * The cleaner's passes and, with scheduling, their scheduler; `erasure` builds what its ticks also
 * drive (the erasure guard, a room above), from the passes and the way to request one.
 */
export function createCleaner(
  deps: CleanerDeps,
  erasure: (
    passes: CleanerPasses,
    requestClean: Cleaner["requestClean"],
  ) => NonNullable<CleanerSchedulerOptions["erasure"]>,
): Cleaner {
  const { prisma, workerId, metrics, logger, clock, scheduling } = deps;
  const health = new CleanerHealthBook(CLEANER_MAX_ATTEMPTS, scheduling?.cleanerBackoffBaseMs);
  const passes = new CleanerPasses({
    host: deps.host,
    health,
    runs: new CleanerRunRepository(prisma, workerId, clock),
    audit: deps.audit,
    metrics,
    logger,
    clock,
    filesChanged: deps.filesChanged,
    ...(deps.fault && { fault: deps.fault }),
  });
  const requestClean = async (partitionId: string, epoch: number): Promise<void> => {
    if (scheduler) return scheduler.requestClean(partitionId, epoch);
    health.forgive(partitionId);
    await passes.clean({ partitionId, epoch, reason: "requested", dirtyRatio: 0 });
  };
  const scheduler = scheduling
    ? new CleanerScheduler({
        ...scheduling,
        cleanerThreads: scheduling.cleanerThreads ?? 1,
        workerId,
        host: deps.host,
        health,
        passes,
        stats: new PartitionStatsRepository(prisma, workerId, clock, metrics.fetched),
        metrics,
        logger,
        clock,
        erasure: erasure(passes, requestClean),
      })
    : null;
  return { passes, scheduler, health, lastCleanAt: passes.lastCleanAt, requestClean };
}
