import { humanDuration } from "@/lib/human-duration";

interface Position {
  partition: number;
  /** null: no committed position (a Kafka client committed -1 or -2). */
  offset: number | null;
  lag: number | null;
  lagMs: number | null;
}

function lagInWords(p: Position): string {
  if (p.lag === null) return ", lag unknown";
  if (p.lag === 0) return ", caught up";
  return `, ${p.lag.toLocaleString("en")} behind${p.lagMs === null ? "" : ` (${humanDuration(p.lagMs)})`}`;
}

/** A group's positions, one line a partition in words ("Partition 1: at offset 12, 3 behind (8 min)"). */
export function PartitionPositions({ partitions }: { partitions: readonly Position[] }) {
  return (
    <ul className="flex flex-col gap-0.5 text-xs">
      {partitions.map((p) => (
        <li key={p.partition} className={p.offset === null ? undefined : "whitespace-nowrap"}>
          <span className="font-medium">Partition {p.partition}</span>
          {p.offset === null ? (
            // Kafka's tools print "-": the consumer's offset reset policy picks where it starts.
            ": no committed position, no lag (the consumer's offset reset policy decides where it starts)"
          ) : (
            <>
              : at offset <span className="font-mono tabular-nums">{p.offset}</span>
              {lagInWords(p)}
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
