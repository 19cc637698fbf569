import { ERASURE_ACTION_LABELS, isErasureAction, STAGE_PROOF, type StageMark } from "@lastword/erasure";
import { type ErasureDetail, formatTime } from "./erasure-stages";
import { EvidenceTable } from "./evidence-table";

/**
 * received → tombstoned → purged → tombstone expired → closed, each with the time it was reached
 * and, for the two verified stages, the scans that prove it; then the request's audit events.
 */
export function RequestTimeline({ request, marks }: { request: ErasureDetail; marks: StageMark[] }) {
  return (
    <div className="flex flex-col gap-6">
      <ol aria-label="Stages" className="flex flex-col gap-4">
        {marks.map((mark) => {
          const proof = STAGE_PROOF[mark.stage];
          return (
            <li key={mark.stage} className="border-l-2 border-line pl-4" data-reached={mark.at !== null}>
              <p className="text-sm">
                <span className={mark.at ? "font-semibold" : "text-muted"}>{mark.label}</span>
                <span className="ml-2 text-muted">{mark.at ? formatTime(mark.at) : "Not yet"}</span>
              </p>
              {proof === "tombstones" && request.tombstones.length > 0 ? (
                <p className="mt-1 text-xs text-muted">
                  {request.tombstones.map((t) => `${t.topic} / ${t.partition} @ ${t.offset}`).join(" · ")}
                </p>
              ) : null}
              {(proof === "purge" || proof === "expiry") && mark.at ? (
                <div className="mt-2">
                  <EvidenceTable stage={proof} tombstones={request.tombstones} />
                </div>
              ) : null}
            </li>
          );
        })}
      </ol>
      <div>
        <h3 className="text-sm font-semibold">Audit events</h3>
        <ol aria-label="Audit events" className="mt-2 flex flex-col gap-1 text-sm">
          {request.timeline.map((event) => (
            <li key={event.seq} className="flex flex-wrap gap-x-3">
              <span className="tabular-nums text-muted">#{event.seq}</span>
              <span>
                {isErasureAction(event.action) ? ERASURE_ACTION_LABELS[event.action] : event.action}
              </span>
              <span className="text-muted">{formatTime(event.at)}</span>
              <span className="text-xs text-muted">by {event.actor.name}</span>
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}
