import type { Preflight } from "@lastword/erasure";
import type { TopicConfig } from "@lastword/logstore";

/** The workers' default scheduler tick (WORKER_SCHEDULER_TICK_MS); a due pass waits at most one. */
export const ASSUMED_SCHEDULER_TICK_MS = 5_000;
/** Used when a topic has no finished cleaner run to measure pass time from. */
export const DEFAULT_PASS_ESTIMATE_MS = 1_000;

export interface PreflightInput {
  config: Pick<TopicConfig, "segmentMs" | "maxCompactionLagMs" | "deleteRetentionMs" | "minCompactionLagMs">;
  deadlineMs: number;
  schedulerTickMs?: number;
  passEstimateMs?: number;
  /**
   * With an object store: how long its bucket keeps an old version of a deleted object (0 without
   * versioning), null when versions are kept with no expiry; undefined without an object store.
   */
  bucketKeepsVersionsMs?: number | null;
}

/**
 * Worst-case time to purge an erased key on a topic, from its configs and the scheduler: the
 * tombstone's active segment rolls within segment.ms, the oldest dirty record forces a pass within
 * max.compaction.lag.ms, the tick notices it and the pass runs; the tombstone then lives
 * delete.retention.ms more. While a request is pending the worker's erasure guard tightens the lag
 * to the deadline anyway; this says whether the topic meets the deadline without that help.
 */
export function erasurePreflight(input: PreflightInput): Preflight {
  const tick = input.schedulerTickMs ?? ASSUMED_SCHEDULER_TICK_MS;
  const pass = input.passEstimateMs ?? DEFAULT_PASS_ESTIMATE_MS;
  const { segmentMs, maxCompactionLagMs, deleteRetentionMs, minCompactionLagMs } = input.config;
  const keeps = input.bucketKeepsVersionsMs;
  // Old versions the bucket keeps are copies of the purged bytes until they expire.
  const worstCasePurgeMs = saturatingSum(
    Math.max(segmentMs, maxCompactionLagMs, minCompactionLagMs),
    tick,
    pass,
    keeps === null ? Number.MAX_SAFE_INTEGER : (keeps ?? 0),
  );
  const worstCaseTombstoneGoneMs = saturatingSum(worstCasePurgeMs, deleteRetentionMs, tick, pass);
  const meetsDeadline = worstCasePurgeMs <= input.deadlineMs;
  const target = sensibleBelow(Math.floor((input.deadlineMs - tick - pass) / 2));
  let fix: Record<string, string> | null = null;
  if (!meetsDeadline && target > 0 && keeps !== null) {
    fix = {};
    if (maxCompactionLagMs > target) fix["max.compaction.lag.ms"] = String(target);
    if (segmentMs > target) fix["segment.ms"] = String(target);
    if (minCompactionLagMs > target) fix["min.compaction.lag.ms"] = "0";
  }
  return {
    deadlineMs: input.deadlineMs,
    schedulerTickMs: tick,
    passEstimateMs: pass,
    segmentMs,
    maxCompactionLagMs,
    deleteRetentionMs,
    worstCasePurgeMs,
    worstCaseTombstoneGoneMs,
    meetsDeadline,
    tombstoneOutlivesDeadline: worstCaseTombstoneGoneMs > input.deadlineMs,
    fix,
    ...(keeps !== undefined && { bucketKeepsVersionsMs: keeps }),
    explanation: meetsDeadline
      ? `Old values are purged within ${worstCasePurgeMs} ms at worst, inside the ${input.deadlineMs} ms deadline.`
      : keeps === null
        ? "The object store's bucket keeps old versions of deleted objects with no expiry (versioning with no NoncurrentVersionExpiration rule), so erased values stay in the bucket: no deadline can be promised. Add a lifecycle rule that expires noncurrent versions inside the deadline, or turn versioning off."
        : `max(segment.ms, max.compaction.lag.ms) + tick + pass${keeps ? " + the bucket's noncurrent-version expiry" : ""} = ${worstCasePurgeMs} ms exceeds the ${input.deadlineMs} ms deadline${
            fix
              ? `; set ${Object.entries(fix)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(", ")}`
              : "; the deadline is shorter than a tick and a pass"
          }.`,
  };
}

const ROUND_UNITS_MS = [86_400_000, 3_600_000, 60_000, 1_000];
/** How much of the exact bound a rounded suggestion may give up for a rounder number. */
const ROUND_KEEPS = 0.9;

/**
 * A value at most `ms` that a person would type: whole days, hours, minutes or seconds, the
 * largest unit that keeps at least ROUND_KEEPS of it (14 d rather than 1295997000 ms). Rounding
 * down keeps the suggestion inside the deadline.
 */
function sensibleBelow(ms: number): number {
  for (const unit of ROUND_UNITS_MS) {
    const rounded = Math.floor(ms / unit) * unit;
    if (rounded > 0 && rounded >= ms * ROUND_KEEPS) return rounded;
  }
  return ms;
}

// Long.MAX configs must stay "never" rather than overflow into precision noise.
function saturatingSum(...parts: number[]): number {
  const sum = parts.reduce((a, b) => a + b, 0);
  return Math.min(sum, Number.MAX_SAFE_INTEGER);
}
