import { INITIAL_ERASURE_STATUS, type StageMark } from "@lastword/erasure";
import { barPercent, countdown, formatTime } from "./erasure-stages";

interface DeadlineBarProps {
  receivedAt: string;
  deadlineAt: string;
  marks: readonly StageMark[];
  nowMs: number;
}

/**
 * The request's window as a horizontal bar from received to deadline: elapsed time shaded, one
 * mark per stage reached, a line for now. The same facts are in the timeline below as text; the
 * picture's accessible name says them in one sentence.
 */
export function DeadlineBar({ receivedAt, deadlineAt, marks, nowMs }: DeadlineBarProps) {
  const from = Date.parse(receivedAt);
  const to = Date.parse(deadlineAt);
  const reached = marks.filter((m) => m.at !== null);
  const latest = reached[reached.length - 1];
  const summary = `Deadline timeline: received ${formatTime(from)}, deadline ${formatTime(to)} (${countdown(
    to - nowMs,
  )}); ${reached
    .slice(1)
    .map(
      (m) =>
        `${m.label.toLowerCase()} at ${Math.round(barPercent(from, to, Date.parse(m.at as string)))} % of the window`,
    )
    .join(", ")}${reached.length > 1 ? "" : "no stage reached yet past received"}.`;
  const nowPercent = barPercent(from, to, nowMs);
  return (
    <figure className="flex flex-col gap-2">
      <div role="img" aria-label={summary} className="relative h-10">
        <div className="absolute inset-x-0 top-4 h-2 rounded-full bg-line" />
        <div
          className="absolute left-0 top-4 h-2 rounded-full bg-accent/30"
          style={{ width: `${nowPercent}%` }}
        />
        {reached.map((mark) => (
          <div
            key={mark.stage}
            title={`${mark.label}: ${formatTime(mark.at as string)}`}
            className="absolute top-2 h-6 w-1 -translate-x-1/2 rounded bg-accent"
            style={{ left: `${barPercent(from, to, Date.parse(mark.at as string))}%` }}
          />
        ))}
        <div title="Now" className="absolute top-0 h-10 w-px bg-ink/60" style={{ left: `${nowPercent}%` }} />
      </div>
      <figcaption className="flex justify-between text-xs text-muted">
        <span>Received {formatTime(from)}</span>
        <span>
          {latest && latest.stage !== INITIAL_ERASURE_STATUS ? `${latest.label} · ` : ""}Deadline{" "}
          {formatTime(to)}
        </span>
      </figcaption>
    </figure>
  );
}
