import type { JobsOptions } from "bullmq";
import { z } from "zod";

/**
 * Every BullMQ job Lastword runs: its name, payload schema, id rule, retry policy and schedule.
 * Payloads carry ids, never record bytes or secrets. Producers and processors both go through
 * this catalog, so a payload is validated on the way in and on the way out.
 */
export interface JobDefinition<S extends z.ZodType> {
  name: string;
  schema: S;
  /** Deduplication: while a job with this id waits or runs, adding another is a no-op. */
  jobId: (payload: z.infer<S>) => string;
  options: JobsOptions;
}

function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  return definition;
}

export const CLEAN_REASONS = ["dirty-ratio", "max-compaction-lag", "delete-horizon", "requested"] as const;
export type CleanReason = (typeof CLEAN_REASONS)[number];

const partitionPayload = { partitionId: z.string().min(1), epoch: z.number().int().nonnegative() };

// Finished jobs are removed at once: the next tick decides afresh from the log's state, and a
// removed id is what lets that tick enqueue the partition again.
const oneShot: JobsOptions = { attempts: 1, removeOnComplete: true, removeOnFail: true };

export const cleanPartitionJob = defineJob({
  name: "clean-partition",
  schema: z.object({
    ...partitionPayload,
    reason: z.enum(CLEAN_REASONS),
    dirtyRatio: z.number().min(0).max(1),
  }),
  jobId: (payload) => `clean-${payload.partitionId}`,
  options: oneShot,
});

export const retainPartitionJob = defineJob({
  name: "retain-partition",
  schema: z.object(partitionPayload),
  jobId: (payload) => `retain-${payload.partitionId}`,
  options: oneShot,
});

export const schedulerTickJob = defineJob({
  name: "scheduler-tick",
  schema: z.object({}),
  jobId: () => "scheduler-tick",
  options: oneShot,
});

export const DEFAULT_SCHEDULER_TICK_MS = 5_000;

export type CleanPartitionPayload = z.infer<typeof cleanPartitionJob.schema>;
export type RetainPartitionPayload = z.infer<typeof retainPartitionJob.schema>;

/**
 * Queues are per worker: a partition's log is open on its owner only, so its owner both schedules
 * and runs its passes. Names may not contain ":" (BullMQ's key separator).
 */
export function workerQueueNames(workerId: string): { scheduler: string; cleaner: string } {
  if (workerId.includes(":")) throw new Error(`worker id must not contain ":" (${workerId})`);
  return { scheduler: `scheduler.${workerId}`, cleaner: `cleaner.${workerId}` };
}

/**
 * BullMQ priority for a cleaner job (1 = first). Overdue max-lag and delete-horizon work goes ahead
 * of everything; then the higher the dirty ratio, the sooner; a requested pass sits in between.
 */
export function cleanerPriority(reason: CleanReason, dirtyRatio: number): number {
  if (reason === "max-compaction-lag" || reason === "delete-horizon") return 1;
  if (reason === "requested") return 2;
  const ratio = Math.min(1, Math.max(0, dirtyRatio));
  return 3 + Math.round((1 - ratio) * 10_000);
}
