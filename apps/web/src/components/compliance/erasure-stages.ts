import type { AppRouter } from "@lastword/api";
import type { inferRouterOutputs } from "@trpc/server";
import { formatDurationMs } from "../../lib/config-units";

type Outputs = inferRouterOutputs<AppRouter>;
export type ErasureDetail = Outputs["erasure"]["get"];
export type ErasureSummary = Outputs["erasure"]["list"]["requests"][number];
export type ErasureStatus = ErasureSummary["status"];

/** The path every request walks; at-risk and failed are detours named by the request's reason. */
export const STAGES = [
  { stage: "received", label: "Received" },
  { stage: "tombstoned", label: "Tombstoned" },
  { stage: "purged", label: "Purged" },
  { stage: "tombstone-expired", label: "Tombstone expired" },
  { stage: "closed", label: "Closed" },
] as const;
export type Stage = (typeof STAGES)[number]["stage"];

export interface StageMark {
  stage: Stage;
  label: string;
  /** When the stage was reached (ISO), or null while it is still ahead. */
  at: string | null;
}

type StageInput = Pick<ErasureDetail, "receivedAt" | "closedAt"> & {
  tombstones: readonly { writtenAt: string; purgedAt: string | null; expiredAt: string | null }[];
};

/** The latest of the times, or null unless every one is known (a stage holds only once all partitions reach it). */
function allReached(times: readonly (string | null)[]): string | null {
  if (times.length === 0 || times.some((t) => t === null)) return null;
  return (times as string[]).reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b));
}

/**
 * When each stage was reached, from the workers' own times on the tombstones (write, verified
 * purge, verified expiry) rather than when the control plane noticed, so the picture shows the proof.
 */
export function stageMarks(request: StageInput): StageMark[] {
  const at: Record<Stage, string | null> = {
    received: request.receivedAt,
    tombstoned: allReached(request.tombstones.map((t) => t.writtenAt)),
    purged: allReached(request.tombstones.map((t) => t.purgedAt)),
    "tombstone-expired": allReached(request.tombstones.map((t) => t.expiredAt)),
    closed: request.closedAt,
  };
  return STAGES.map(({ stage, label }) => ({ stage, label, at: at[stage] }));
}

/** Where `atMs` sits on a bar from received (0 %) to deadline (100 %), clamped to the bar. */
export function barPercent(receivedMs: number, deadlineMs: number, atMs: number): number {
  const span = deadlineMs - receivedMs;
  if (span <= 0) return 100;
  return Math.min(100, Math.max(0, ((atMs - receivedMs) / span) * 100));
}

/** A deadline countdown as a sentence fragment: "12 min left", "2 d 3 h left", "overdue by 5 s". */
export function countdown(msToDeadline: number): string {
  const text = roughDuration(Math.abs(msToDeadline));
  return msToDeadline >= 0 ? `${text} left` : `overdue by ${text}`;
}

/** Two units at most (a countdown needs no milliseconds). */
export function roughDuration(ms: number): string {
  const units = [
    { ms: 86_400_000, unit: "d" },
    { ms: 3_600_000, unit: "h" },
    { ms: 60_000, unit: "min" },
    { ms: 1_000, unit: "s" },
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const { ms: size, unit } of units) {
    if (parts.length === 2) break;
    const n = Math.floor(rest / size);
    if (n > 0 || parts.length > 0) {
      if (n > 0) parts.push(`${n} ${unit}`);
      rest -= n * size;
    }
  }
  return parts.length > 0 ? parts.join(" ") : formatDurationMs(Math.max(0, Math.round(ms)));
}

/** Statuses still running toward the deadline (the ones a countdown matters for). */
export function isOpen(status: ErasureStatus): boolean {
  return status === "received" || status === "tombstoned" || status === "at-risk";
}

const longTime = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium" });
const shortTime = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

/** An ISO time (or epoch ms) as the compliance pages print it: medium date in prose, short in tables. */
export function formatTime(at: string | number, style: "long" | "short" = "long"): string {
  const ms = typeof at === "number" ? at : Date.parse(at);
  return (style === "long" ? longTime : shortTime).format(ms);
}
