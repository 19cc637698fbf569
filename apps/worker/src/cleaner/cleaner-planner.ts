import type { CleanPartitionPayload, CleanReason, RetainPartitionPayload } from "@lastword/jobs";
import type { CleanableStats } from "@lastword/logstore";
import type { HostedLog } from "../hosting/hosted-log";
import type { PartitionHost } from "../hosting/partition-host";
import type { PartitionSlot } from "../hosting/partition-slot";
import type { Logger } from "../logger";
import type { PartitionStats } from "../metrics/partition-stats.repository";
import type { CleanerHealthBook } from "./cleaner-health";
import { retentionDue } from "./retention-due";

export interface TickPlan {
  clean: CleanPartitionPayload[];
  retain: RetainPartitionPayload[];
  stats: Map<string, PartitionStats>;
}

export interface PlannerContext {
  host: PartitionHost;
  health: CleanerHealthBook;
  lastCleanAt: ReadonlyMap<string, number>;
  workerId: string;
  logger: Logger;
  nowMs: number;
}

/**
 * One scheduler tick over this worker's partitions: rolls idle active segments whose time is up (so
 * they become cleanable without new writes), then lists the partitions a cleaner or retention pass
 * is due for, and the stats the console shows. A partition that throws here affects only itself.
 */
export async function planTick(ctx: PlannerContext): Promise<TickPlan> {
  const plan: TickPlan = { clean: [], retain: [], stats: new Map() };
  for (const slot of ctx.host.slots()) {
    if (slot.state !== "open") continue;
    try {
      await slot.use((log) => planPartition(ctx, slot, log, plan), "background");
    } catch (error) {
      ctx.logger.warn({ partitionId: slot.partitionId, err: error }, "scheduler skipped a partition");
    }
  }
  return plan;
}

/** The cleaner job a partition needs now, if any (compacting, cleanable, not held by failures). */
export function cleanJobFor(
  slot: PartitionSlot,
  log: HostedLog,
  health: CleanerHealthBook,
  nowMs: number,
): { job: CleanPartitionPayload | null; stats: CleanableStats | null } {
  const stats = log.config.cleanupPolicy.compact ? log.cleanableStats() : null;
  if (!stats?.cleanable || !health.mayRun(slot.partitionId, slot.configVersion, nowMs))
    return { job: null, stats };
  const reason = cleanReason(stats, log.config.minCleanableDirtyRatio);
  const job = {
    partitionId: slot.partitionId,
    epoch: slot.epoch,
    reason,
    dirtyRatio: clampRatio(stats.dirtyRatio),
  };
  return { job, stats };
}

async function planPartition(
  ctx: PlannerContext,
  slot: PartitionSlot,
  log: HostedLog,
  plan: TickPlan,
): Promise<void> {
  const { partitionId, epoch } = slot;
  if (ctx.host.leaseFresh(slot)) await log.maybeRoll();
  const { job, stats } = cleanJobFor(slot, log, ctx.health, ctx.nowMs);
  if (job) plan.clean.push(job);
  const segments = await log.segments();
  if (retentionDue(log.config, segments, log.logStartOffset, ctx.nowMs))
    plan.retain.push({ partitionId, epoch });
  plan.stats.set(partitionId, describe(ctx, slot, log, stats, segments));
}

function cleanReason(stats: CleanableStats, minCleanableDirtyRatio: number): CleanReason {
  if (stats.maxCompactionDelayMs > 0) return "max-compaction-lag";
  if (stats.dirtyRatio > minCleanableDirtyRatio) return "dirty-ratio";
  return "delete-horizon";
}

function clampRatio(ratio: number): number {
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 0;
}

function describe(
  ctx: PlannerContext,
  slot: PartitionSlot,
  log: HostedLog,
  stats: CleanableStats | null,
  segments: readonly { sizeBytes: number }[],
): PartitionStats {
  const due = stats ? log.nextCleanDueAt() : null;
  const uncleanable = ctx.health.state(slot.partitionId);
  const lastCleanAt = ctx.lastCleanAt.get(slot.partitionId);
  return {
    sizeBytes: segments.reduce((sum, segment) => sum + segment.sizeBytes, 0),
    segments: segments.length,
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    dirtyRatio: clampRatio(stats?.dirtyRatio ?? 0),
    cleanable: stats?.cleanable ?? false,
    maxCompactionDelayMs: stats?.maxCompactionDelayMs ?? 0,
    nextCleanDueAt: due === null ? null : new Date(due).toISOString(),
    lastCleanAt: lastCleanAt === undefined ? null : new Date(lastCleanAt).toISOString(),
    uncleanable: uncleanable && {
      error: uncleanable.error,
      failures: uncleanable.failures,
      held: uncleanable.held,
      retryAt: uncleanable.retryAtMs === null ? null : new Date(uncleanable.retryAtMs).toISOString(),
    },
    workerId: ctx.workerId,
    updatedAt: new Date(ctx.nowMs).toISOString(),
  };
}
