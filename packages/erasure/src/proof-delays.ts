import { z } from "zod";

/**
 * The timings an erasure's proof depends on, as a worker runs them: the scheduler tick that
 * notices a tombstone and the one that proves it, a targeted rewrite, and with an object store
 * the tiering pass that uploads the rewritten segment and the consolidation that frees shared
 * commit objects (the only objects holding the key that cannot be deleted at once).
 */
export interface ProofTimings {
  tickMs: number;
  /** How long one rewrite (or upload) of the partition's segment takes, at worst. */
  passMs: number;
  /** With an object store; absent without one. */
  objects?: { syncIntervalMs: number; consolidateAfterMs: number } | undefined;
}

export const proofDelaySchema = z.object({
  /** What is waited for, in words for people. */
  step: z.string(),
  ms: z.number(),
});
/** One wait on the way from a written tombstone to its purge proof. */
export type ProofDelay = z.infer<typeof proofDelaySchema>;

/** The workers' defaults (WORKER_SCHEDULER_TICK_MS, segment tiering's interval and consolidation). */
export const DEFAULT_PROOF_TIMINGS = {
  tickMs: 5_000,
  passMs: 1_000,
  objects: { syncIntervalMs: 1_000, consolidateAfterMs: 30_000 },
} as const satisfies ProofTimings;

/**
 * Every wait between a tombstone being written and its purge being proven on every tier, once
 * min.compaction.lag.ms (if any) let the rewrite run: the worker's erasure guard uses their sum as
 * its safety margin, the preflight adds it to its worst case, so both promise the same time.
 */
export function proofDelays(timings: ProofTimings): ProofDelay[] {
  const delays: ProofDelay[] = [
    {
      step: "the next scheduler tick notices the tombstone and starts the targeted rewrite",
      ms: timings.tickMs,
    },
    { step: "the targeted rewrite of the segments that may hold the key", ms: timings.passMs },
  ];
  if (timings.objects) {
    delays.push(
      {
        step: "the rewritten segments are uploaded and replace their old objects (deleted at once)",
        ms: timings.objects.syncIntervalMs + timings.passMs,
      },
      {
        step: "commit objects the key shares with other partitions are deleted once those partitions consolidate",
        ms: timings.objects.consolidateAfterMs + timings.objects.syncIntervalMs,
      },
    );
  }
  delays.push({ step: "the next scheduler tick proves the key gone", ms: timings.tickMs });
  return delays;
}

export function totalDelayMs(delays: readonly ProofDelay[]): number {
  return delays.reduce((sum, delay) => sum + delay.ms, 0);
}

/**
 * When a tombstone's targeted rewrite is due, as ms after it was written: at once, unless
 * min.compaction.lag.ms still protects the key's records; never later than the deadline less the
 * proof's own delays (the rewrite then ignores the lag for that key, so no setting can stop it).
 */
export function purgeWaitMs(
  minCompactionLagMs: number,
  writtenAtMs: number,
  deadlineAtMs: number,
  proofMs: number,
): number {
  return Math.min(minCompactionLagMs, Math.max(0, deadlineAtMs - writtenAtMs - proofMs));
}

/** A duration for people: "45 s", "12 min", "1.5 h", "30 d". */
export function formatMs(ms: number): string {
  if (ms >= Number.MAX_SAFE_INTEGER) return "never";
  const units = [
    [86_400_000, "d"],
    [3_600_000, "h"],
    [60_000, "min"],
    [1_000, "s"],
  ] as const;
  for (const [size, unit] of units) {
    if (ms >= size) return `${Math.round((ms / size) * 10) / 10} ${unit}`;
  }
  return `${ms} ms`;
}
