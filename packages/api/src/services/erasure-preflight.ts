import {
  DEFAULT_PROOF_TIMINGS,
  formatMs,
  type Preflight,
  type ProofTimings,
  proofDelays,
  purgeWaitMs,
  totalDelayMs,
} from "@lastword/erasure";
import type { TopicConfig } from "@lastword/topic-config";

/** The workers' default scheduler tick (WORKER_SCHEDULER_TICK_MS), when no live worker reported its own. */
export const ASSUMED_SCHEDULER_TICK_MS = DEFAULT_PROOF_TIMINGS.tickMs;
/** Used when a topic has no finished cleaner run to measure pass time from. */
export const DEFAULT_PASS_ESTIMATE_MS = DEFAULT_PROOF_TIMINGS.passMs;

export interface PreflightInput {
  config: Pick<TopicConfig, "segmentMs" | "maxCompactionLagMs" | "deleteRetentionMs" | "minCompactionLagMs">;
  deadlineMs: number;
  schedulerTickMs?: number | undefined;
  passEstimateMs?: number | undefined;
  /**
   * With an object store: how long its bucket keeps an old version of a deleted object (0 without
   * versioning), null when versions are kept with no expiry; undefined without an object store.
   */
  bucketKeepsVersionsMs?: number | null | undefined;
  /** With an object store: its tiering timings as the workers reported them (defaults otherwise). */
  objects?: ProofTimings["objects"];
}

/**
 * Worst-case time from filing to a purge proven on every tier, as the worker's erasure guard runs
 * it (apps/worker DESIGN.md, "Erasure deadline guarantee"): a tombstone's targeted rewrite is due at
 * once, held back only by min.compaction.lag.ms, then the proof waits for every delay in
 * `proofDelays` (a tick, the rewrite, with an object store the upload and the shared commit
 * objects' consolidation, the proving tick) and the bucket's kept versions. segment.ms and
 * max.compaction.lag.ms do not delay an erasure (the guard rolls and rewrites itself). The
 * tombstone then lives delete.retention.ms more. A min.compaction.lag.ms that would miss the
 * deadline is overridden for the erased key when only the proof's own delays are left, so the
 * purge still lands in time; the preflight reports it as missed because honouring the setting
 * would miss it.
 */
export function erasurePreflight(input: PreflightInput): Preflight {
  const tick = input.schedulerTickMs ?? ASSUMED_SCHEDULER_TICK_MS;
  const pass = input.passEstimateMs ?? DEFAULT_PASS_ESTIMATE_MS;
  const { segmentMs, maxCompactionLagMs, deleteRetentionMs, minCompactionLagMs } = input.config;
  const keeps = input.bucketKeepsVersionsMs;
  const delays = proofDelays({
    tickMs: tick,
    passMs: pass,
    objects: keeps === undefined ? undefined : (input.objects ?? DEFAULT_PROOF_TIMINGS.objects),
  });
  const proofMs = totalDelayMs(delays);
  // Old versions the bucket keeps are copies of the purged bytes until they expire.
  const worstCasePurgeMs = saturatingSum(
    minCompactionLagMs,
    proofMs,
    keeps === null ? Number.MAX_SAFE_INTEGER : (keeps ?? 0),
  );
  // The rewrite stamps the tombstone's horizon; a pass after it removes the tombstone, once
  // min.compaction.lag.ms lets a pass clean the tombstone's segment (the tombstone is not overridden).
  const worstCaseTombstoneGoneMs = saturatingSum(
    Math.max(
      minCompactionLagMs,
      purgeWaitMs(minCompactionLagMs, 0, input.deadlineMs, proofMs) + proofMs + deleteRetentionMs,
    ),
    tick,
    pass,
  );
  const meetsDeadline = worstCasePurgeMs <= input.deadlineMs;
  const room = input.deadlineMs - proofMs - (keeps ?? 0);
  const target = room > 0 ? sensibleBelow(room) : 0;
  const fix =
    !meetsDeadline && keeps !== null && room >= 0 && minCompactionLagMs > room
      ? { "min.compaction.lag.ms": String(target) }
      : null;
  const waits = `${formatMs(proofMs)} of proof (${delays.map((d) => `${d.step}: ${formatMs(d.ms)}`).join("; ")})`;
  return {
    deadlineMs: input.deadlineMs,
    schedulerTickMs: tick,
    passEstimateMs: pass,
    segmentMs,
    maxCompactionLagMs,
    minCompactionLagMs,
    deleteRetentionMs,
    worstCasePurgeMs,
    delays,
    worstCaseTombstoneGoneMs,
    meetsDeadline,
    tombstoneOutlivesDeadline: worstCaseTombstoneGoneMs > input.deadlineMs,
    fix,
    ...(keeps !== undefined && { bucketKeepsVersionsMs: keeps }),
    explanation: meetsDeadline
      ? `Old values are purged and proven gone within ${formatMs(worstCasePurgeMs)} at worst (${minCompactionLagMs > 0 ? `min.compaction.lag.ms ${formatMs(minCompactionLagMs)} + ` : ""}${waits}${keeps ? " + the bucket's noncurrent-version expiry" : ""}), inside the ${formatMs(input.deadlineMs)} deadline.`
      : keeps === null
        ? "The object store's bucket keeps old versions of deleted objects with no expiry (versioning with no NoncurrentVersionExpiration rule), so erased values stay in the bucket: no deadline can be promised. Add a lifecycle rule that expires noncurrent versions inside the deadline, or turn versioning off."
        : fix
          ? `min.compaction.lag.ms (${formatMs(minCompactionLagMs)}) + ${waits}${keeps ? " + the bucket's noncurrent-version expiry" : ""} = ${formatMs(worstCasePurgeMs)} exceeds the ${formatMs(input.deadlineMs)} deadline. A pending request overrides min.compaction.lag.ms for its key when only the proof's own time is left, so the purge still lands in time, but consumers lose that setting's guarantee for the key; set min.compaction.lag.ms=${target} to keep both.`
          : `The deadline (${formatMs(input.deadlineMs)}) is shorter than what a proof takes at worst: ${waits}${keeps ? ` + the bucket's noncurrent-version expiry (${formatMs(keeps)})` : ""}.`,
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
