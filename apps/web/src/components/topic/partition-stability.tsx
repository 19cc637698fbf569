import type { RouterOutputs } from "@lastword/api";
import { shortDateTime } from "@/lib/date-time-formats";

type Layout = RouterOutputs["topics"]["segments"];

/**
 * A partition's last stable offset beside its log end, and the Kafka transactions holding it back
 * (issue 32): read_committed consumers read only up to the LSO, so one stuck below the log end by
 * an open transaction is what this makes visible, with who holds it and since when.
 */
export function PartitionStability({ partition, layout }: { partition: number; layout: Layout }) {
  const held = layout.lastStableOffset < layout.logEndOffset;
  return (
    <div className="flex flex-col gap-1 text-xs">
      <p className="text-muted tabular-nums">
        Last stable offset <span className="font-medium text-ink">{layout.lastStableOffset}</span> · log end{" "}
        <span className="font-medium text-ink">{layout.logEndOffset}</span>
        {held
          ? ` · read_committed consumers wait at ${layout.lastStableOffset}, ${layout.logEndOffset - layout.lastStableOffset} behind`
          : null}
      </p>
      {layout.openTransactions.length > 0 ? (
        <ul
          aria-label={`Partition ${partition} open transactions`}
          className="flex flex-col gap-1 rounded-md border border-amber-500/40 bg-amber-500/10 p-2 text-amber-800 dark:text-amber-200"
        >
          {layout.openTransactions.map((t) => (
            <li key={`${t.producerId}:${t.producerEpoch}`} className="break-all">
              Open transaction{" "}
              <span className="font-mono font-medium">
                {t.transactionalId ?? "(unknown transactional id)"}
              </span>{" "}
              · producer {t.producerId} epoch {t.producerEpoch} · from offset {t.firstOffset}
              {t.startedAt ? ` · started ${shortDateTime.format(new Date(t.startedAt))}` : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
