import { formatBytes, type PartitionStats, parsePartitionStats } from "@/lib/partition-stats";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DirtyRatioMeter } from "./dirty-ratio-meter";

interface PartitionDetail {
  partition: number;
  ownerWorkerId: string | null;
  stats: Record<string, unknown> | null;
}

const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

export function PartitionTable({ partitions }: { partitions: readonly PartitionDetail[] }) {
  return (
    <Card title="Partitions" description="Each partition is one log, owned by one worker at a time.">
      <div className="overflow-x-auto">
        <table aria-label="Partitions" className="w-full text-left text-sm">
          <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
            <tr>
              {[
                "Partition",
                "Owner",
                "Start offset",
                "End offset",
                "Size",
                "Segments",
                "Dirty",
                "Last clean",
                "Status",
              ].map((title) => (
                <th key={title} scope="col" className="py-2 pr-4 font-medium whitespace-nowrap">
                  {title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {partitions.map((detail) => (
              <PartitionRow
                key={detail.partition}
                detail={detail}
                stats={parsePartitionStats(detail.stats)}
              />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

function PartitionRow({ detail, stats }: { detail: PartitionDetail; stats: PartitionStats | null }) {
  return (
    <tr className="border-b border-line last:border-0">
      <th scope="row" className="py-2 pr-4 font-mono font-medium">
        {detail.partition}
      </th>
      <td className="py-2 pr-4 font-mono text-xs">{detail.ownerWorkerId ?? "Unassigned"}</td>
      {stats ? (
        <>
          <td className="py-2 pr-4 tabular-nums">{stats.logStartOffset}</td>
          <td className="py-2 pr-4 tabular-nums" title="The offset the next record will get">
            {stats.logEndOffset}
          </td>
          <td className="py-2 pr-4 tabular-nums whitespace-nowrap">{formatBytes(stats.sizeBytes)}</td>
          <td className="py-2 pr-4 tabular-nums">{stats.segments}</td>
          <td className="py-2 pr-4">
            <DirtyRatioMeter ratio={stats.dirtyRatio} label={`Partition ${detail.partition} dirty ratio`} />
          </td>
          <td className="py-2 pr-4 text-xs whitespace-nowrap text-muted">
            {stats.lastCleanAt ? timeFormat.format(new Date(stats.lastCleanAt)) : "Never"}
          </td>
          <td className="py-2">
            <PartitionStatus stats={stats} />
          </td>
        </>
      ) : (
        <td colSpan={7} className="py-2 text-sm text-muted">
          Waiting for the first report from its worker.
        </td>
      )}
    </tr>
  );
}

function PartitionStatus({ stats }: { stats: PartitionStats }) {
  if (stats.uncleanable) {
    return (
      <span title={stats.uncleanable.error}>
        <Badge tone="warning">Uncleanable</Badge>
      </span>
    );
  }
  if (stats.cleanable) return <Badge tone="accent">Cleaning due</Badge>;
  return <Badge>Healthy</Badge>;
}
