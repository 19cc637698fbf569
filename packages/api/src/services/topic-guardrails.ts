import type { TopicConfig } from "@lastword/topic-config";

export interface ConfigWarning {
  code: string;
  message: string;
}

function hours(ms: number): string {
  return `${Math.round((ms / 3_600_000) * 10) / 10} h`;
}

/** Warnings for configs that are valid but probably not what was meant. */
export function configWarnings(config: TopicConfig, partitions: number): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const { cleanupPolicy: policy } = config;
  if (policy.delete && config.retentionMs >= 0 && config.retentionMs < config.segmentMs) {
    warnings.push({
      code: "RETENTION_BELOW_SEGMENT_MS",
      message: `retention.ms (${hours(config.retentionMs)}) is below segment.ms (${hours(config.segmentMs)}): only closed segments are deleted, so records live until their segment rolls, up to segment.ms.`,
    });
  }
  if (policy.delete && config.retentionBytes > 0) {
    warnings.push({
      code: "RETENTION_BYTES_PER_PARTITION",
      message: `retention.bytes applies per partition: this topic may keep up to ${config.retentionBytes * partitions} bytes (${partitions} × ${config.retentionBytes}).`,
    });
  }
  return warnings;
}

/** Warnings that depend on the change itself, not only on the result. */
export function changeWarnings(before: TopicConfig, after: TopicConfig): ConfigWarning[] {
  if (!before.cleanupPolicy.compact && after.cleanupPolicy.compact) {
    return [
      {
        code: "DELETE_TO_COMPACT",
        message:
          "Switching to compaction keeps the latest value of each key from now on; history that retention already deleted is gone and cannot be rebuilt.",
      },
    ];
  }
  return [];
}
