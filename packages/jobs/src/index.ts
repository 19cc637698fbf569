export {
  CLEAN_REASONS,
  type CleanPartitionPayload,
  type CleanReason,
  cleanerPriority,
  cleanPartitionJob,
  DEFAULT_SCHEDULER_TICK_MS,
  type JobDefinition,
  type RetainPartitionPayload,
  retainPartitionJob,
  schedulerTickJob,
  workerQueueNames,
} from "./catalog";
