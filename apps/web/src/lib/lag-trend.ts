import { humanDuration } from "./human-duration";

/** One minute of a group's lag as the workers sampled it (consumerGroups.lagHistory). */
export interface LagPoint {
  at: string;
  records: number;
}

/** How a group's lag moved over its stored samples: the change from the first to the last, signed. */
export function lagChange(points: readonly LagPoint[]): number {
  if (points.length < 2) return 0;
  return points.at(-1)!.records - points[0]!.records;
}

/** The trend in words, from the samples the workers stored (so it survives a reload). */
export function lagTrend(points: readonly LagPoint[]): string {
  const last = points.at(-1);
  if (!last) return "No samples in the last hour";
  const first = points[0]!;
  const records = (n: number) => `${n.toLocaleString("en")} ${n === 1 ? "record" : "records"}`;
  if (points.length === 1) return `One sample so far: ${records(last.records)} behind`;
  const over = humanDuration(Date.parse(last.at) - Date.parse(first.at));
  const change = lagChange(points);
  if (change === 0) return `Steady at ${records(last.records)} over ${over}`;
  return `${change > 0 ? "Growing" : "Shrinking"} by ${records(Math.abs(change))} over ${over}`;
}
