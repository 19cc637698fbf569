import { humanDuration } from "@/lib/human-duration";

interface Position {
  partition: number;
  offset: number;
  lag: number | null;
  lagMs: number | null;
}

/** A group's positions, one line a partition in words ("Partition 1: at offset 12, 3 behind (8 min)"). */
export function PartitionPositions({ partitions }: { partitions: readonly Position[] }) {
  return (
    <ul className="flex flex-col gap-0.5 text-xs">
      {partitions.map((p) => (
        <li key={p.partition} className="whitespace-nowrap">
          <span className="font-medium">Partition {p.partition}</span>: at offset{" "}
          <span className="font-mono tabular-nums">{p.offset}</span>
          {p.lag === null
            ? ", lag unknown"
            : p.lag === 0
              ? ", caught up"
              : `, ${p.lag.toLocaleString("en")} behind${p.lagMs === null ? "" : ` (${humanDuration(p.lagMs)})`}`}
        </li>
      ))}
    </ul>
  );
}
