import type { AppRouter } from "@lastword/api";
import type { inferRouterOutputs } from "@trpc/server";
import { formatDurationMs } from "../../lib/config-units";
import { mediumDateTime, shortDateTime } from "../../lib/date-time-formats";

type Outputs = inferRouterOutputs<AppRouter>;
export type ErasureDetail = Outputs["erasure"]["get"];
export type ErasureSummary = Outputs["erasure"]["list"]["requests"][number];

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

/**
 * The deadline in one sentence, in the right tense: a request that closed early still has its
 * deadline ahead, and saying "was" of a date to come reads as if it had been missed.
 */
export function deadlineSentence(
  deadline: { at: number; label: string },
  nowMs: number,
  open: boolean,
): string {
  if (open) return `The deadline is ${deadline.label}: ${countdown(deadline.at - nowMs)}.`;
  if (deadline.at > nowMs) {
    return `The deadline is ${deadline.label}, ${roughDuration(deadline.at - nowMs)} from now; the request closed before it.`;
  }
  return `The deadline was ${deadline.label}.`;
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

/** An ISO time (or epoch ms) as the compliance pages print it: medium date in prose, short in tables. */
export function formatTime(at: string | number, style: "long" | "short" = "long"): string {
  const ms = typeof at === "number" ? at : Date.parse(at);
  return (style === "long" ? mediumDateTime : shortDateTime).format(ms);
}
