import { ERASURE_STAGES, ERASURE_STATUS_LABELS, type ErasureStage, STAGE_PROOF } from "./erasure-status";

/** A request as the console reads it (ISO times): enough to say when each stage was reached. */
export interface StageTimesInput {
  receivedAt: string;
  closedAt: string | null;
  tombstones: readonly { writtenAt: string; purgedAt: string | null; expiredAt: string | null }[];
}

export interface StageMark {
  stage: ErasureStage;
  label: string;
  /** When the stage was reached (ISO), or null while it is still ahead. */
  at: string | null;
}

/** The latest of the times, or null unless every one is known (a stage holds only once all partitions reach it). */
function allReached(times: readonly (string | null)[]): string | null {
  let latest: string | null = null;
  for (const time of times) {
    if (time === null) return null;
    if (latest === null || Date.parse(time) > Date.parse(latest)) latest = time;
  }
  return latest;
}

/**
 * When each stage was reached, from the workers' own times on the tombstones (write, verified
 * purge, verified expiry) rather than when the control plane noticed, so the picture shows the proof.
 */
export function stageMarks(request: StageTimesInput): StageMark[] {
  const { tombstones } = request;
  const reachedAt = {
    request: request.receivedAt,
    tombstones: allReached(tombstones.map((t) => t.writtenAt)),
    purge: allReached(tombstones.map((t) => t.purgedAt)),
    expiry: allReached(tombstones.map((t) => t.expiredAt)),
    close: request.closedAt,
  } as const;
  return ERASURE_STAGES.map((stage) => ({
    stage,
    label: ERASURE_STATUS_LABELS[stage],
    at: reachedAt[STAGE_PROOF[stage]],
  }));
}
