import type { RouterOutputs } from "@lastword/api";
import { humanDuration } from "./human-duration";

export type TopicDurability = RouterOutputs["topics"]["durability"];

/** When a produce to the topic is acknowledged, in words; a fleet without a store says so first. */
export function durabilityModeWords(d: Pick<TopicDurability, "mode" | "objectStore">): string {
  if (!d.objectStore) return "Local disk only: no object store configured";
  return d.mode === "object"
    ? "Acknowledged after upload to object storage"
    : "Acknowledged on local disk; uploaded within one commit window";
}

/**
 * What a lost machine could be rebuilt from: the committed durable end of each partition (one
 * past its last offset in object storage, so "up to" the offset before it) and how long ago the
 * newest object was committed. Partitions no worker has opened with the store yet are named.
 */
export function recoveryPointWords(d: TopicDurability, nowMs: number): string {
  if (!d.objectStore) {
    return "No recovery point: the partitions are only on their worker's disk, and a lost disk loses them.";
  }
  const known = d.partitions.filter((p) => p.durableEndOffset !== null);
  const unopened = d.partitions.filter((p) => p.durableEndOffset === null).map((p) => p.partition);
  const ends = new Set(known.map((p) => p.durableEndOffset));
  const parts: string[] = [];
  if (known.length > 0) {
    const where =
      known.length < d.partitions.length
        ? `${known.length === 1 ? "partition" : "partitions"} ${known.map((p) => p.partition).join(", ")}`
        : known.length === 1
          ? "the partition"
          : "each partition";
    const [onlyEnd] = ends.size === 1 ? [...ends] : [];
    parts.push(
      onlyEnd === undefined || onlyEnd === null
        ? "Everything below each partition's durable end (table) is in object storage"
        : onlyEnd === 0
          ? `Nothing in ${where} is in object storage yet`
          : `Everything up to offset ${onlyEnd - 1} in ${where} is in object storage`,
    );
  }
  if (unopened.length > 0) {
    parts.push(
      `${unopened.length === 1 ? "partition" : "partitions"} ${unopened.join(", ")} not yet opened with the object store`,
    );
  }
  const pending = known.reduce((n, p) => n + (p.pendingOffsets ?? 0), 0);
  if (pending > 0) parts.push(`${pending} ${pending === 1 ? "offset" : "offsets"} not yet uploaded`);
  parts.push(
    d.lastObjectAt === null
      ? "no upload yet"
      : `last upload ${humanDuration(nowMs - Date.parse(d.lastObjectAt))} ago`,
  );
  return `${capitalize(parts.join("; "))}.`;
}

/**
 * How far object storage trails the log: the offsets appended but not yet uploaded (all partitions,
 * and the one furthest behind) and how long ago the last upload was. Null without an object store.
 */
export function uploadLagWords(d: TopicDurability, nowMs: number): string | null {
  if (!d.objectStore) return null;
  const reported = d.partitions.filter((p) => p.pendingOffsets !== null);
  if (reported.length === 0) return "Not known yet: no partition has reported its log end.";
  const pending = reported.reduce((n, p) => n + (p.pendingOffsets ?? 0), 0);
  const since =
    d.lastObjectAt === null
      ? "no upload yet"
      : `last upload ${humanDuration(nowMs - Date.parse(d.lastObjectAt))} ago`;
  if (pending === 0) return `None: every reported offset is in object storage (${since}).`;
  const worst = reported.reduce((a, b) => ((b.pendingOffsets ?? 0) > (a.pendingOffsets ?? 0) ? b : a));
  const offsets = (n: number) => `${n} ${n === 1 ? "offset" : "offsets"}`;
  return `${offsets(pending)} not yet uploaded (most: partition ${worst.partition}, ${offsets(worst.pendingOffsets ?? 0)}); ${since}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
