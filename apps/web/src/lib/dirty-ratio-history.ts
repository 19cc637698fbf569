/** One point of a partition's dirty ratio over time (epoch ms, ratio 0–1). */
export interface RatioPoint {
  at: number;
  ratio: number;
  /** What the point is: the ratio a pass saw, the ratio it left, or the latest worker report. */
  kind: "before pass" | "after pass" | "now";
}

interface RunLike {
  startedAt: string;
  finishedAt: string | null;
  dirtyRatioBefore: number | null;
  dirtyRatioAfter: number | null;
}

/**
 * A partition's dirty-ratio history derived from its cleaner runs (each records the ratio it saw
 * and the ratio it left), ending with the current report. No stats table: between passes the ratio
 * only grows with writes, so the passes' own numbers draw the sawtooth that matters.
 */
export function dirtyRatioHistory(
  runs: readonly RunLike[],
  current: { ratio: number; at: number } | null,
): RatioPoint[] {
  const points: RatioPoint[] = [];
  for (const run of runs) {
    if (run.dirtyRatioBefore !== null)
      points.push({ at: Date.parse(run.startedAt), ratio: clamp(run.dirtyRatioBefore), kind: "before pass" });
    if (run.dirtyRatioAfter !== null && run.finishedAt !== null)
      points.push({ at: Date.parse(run.finishedAt), ratio: clamp(run.dirtyRatioAfter), kind: "after pass" });
  }
  points.sort((a, b) => a.at - b.at);
  const last = points.at(-1);
  if (current && (!last || current.at >= last.at))
    points.push({ at: current.at, ratio: clamp(current.ratio), kind: "now" });
  return points;
}

function clamp(ratio: number): number {
  return Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 0;
}
