import { AppError } from "../errors/app-error";
import type { ExplicitConfigs } from "./topic-config";

export const TOPIC_PRESETS = ["state-table", "event-stream", "expiring-state", "gdpr-table"] as const;
export type TopicPreset = (typeof TOPIC_PRESETS)[number];

const DAY_MS = 86_400_000;

/**
 * gdpr-table: an erased key's old values must be physically gone before the tenant's deadline.
 * The tombstone is cleaned at the latest max.compaction.lag.ms after it is written, so half the
 * deadline leaves the other half as margin for a slow or failed pass; the tombstone itself then
 * lingers delete.retention.ms (a quarter of the deadline, at most a day) for lagging consumers.
 */
function gdprConfigs(erasureDeadlineDays: number): ExplicitConfigs {
  const deadlineMs = erasureDeadlineDays * DAY_MS;
  return {
    "cleanup.policy": "compact",
    "max.compaction.lag.ms": String(Math.floor(deadlineMs / 2)),
    "delete.retention.ms": String(Math.min(DAY_MS, Math.floor(deadlineMs / 4))),
  };
}

/** The configs a preset sets; explicitly given configs override them. */
export function presetConfigs(preset: TopicPreset, erasureDeadlineDays: number): ExplicitConfigs {
  switch (preset) {
    case "state-table":
      return {
        "cleanup.policy": "compact",
        "min.cleanable.dirty.ratio": "0.1",
        "delete.retention.ms": String(DAY_MS),
      };
    case "event-stream":
      return { "cleanup.policy": "delete", "retention.ms": String(7 * DAY_MS) };
    case "expiring-state":
      return { "cleanup.policy": "compact,delete" };
    case "gdpr-table":
      if (erasureDeadlineDays < 2) {
        throw new AppError(
          "INVALID_CONFIG",
          "The tenant's erasure deadline is too short for gdpr-table (at least 2 days).",
        );
      }
      return gdprConfigs(erasureDeadlineDays);
  }
}
