import { shortDateTime } from "@/lib/date-time-formats";
import { formatBytes, type PartitionStats, parsePartitionStats } from "@/lib/partition-stats";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { Disclosure } from "../ui/disclosure";
import { CleanPartitionButton } from "./clean-partition-button";
import { DirtyRatioMeter } from "./dirty-ratio-meter";

interface PartitionDetail {
  partition: number;
  ownerWorkerId: string | null;
  stats: Record<string, unknown> | null;
}

interface CleanerControls {
  topic: string;
  /** Only compacted topics have a cleaner to ask. */
  compacted: boolean;
  /** topics.requestClean needs the admin scope. */
  canClean: boolean;
}

export function PartitionTable({
  partitions,
  ...controls
}: { partitions: readonly PartitionDetail[] } & CleanerControls) {
  const parsed = partitions.map((detail) => ({ detail, stats: parsePartitionStats(detail.stats) }));
  const showCleanColumn = controls.compacted && controls.canClean;
  return (
    <Card title="Partitions" description="Each partition is one log, owned by one worker at a time.">
      <DataTable
        label="Partitions"
        titles={[
          "Partition",
          "Owner",
          "Start offset",
          "End offset",
          "Size",
          "Segments",
          "Dirty",
          "Last clean",
          "Status",
          ...(showCleanColumn ? ["Cleaner"] : []),
        ]}
        frameClassName="relative overflow-x-auto"
      >
        {parsed.map(({ detail, stats }) => (
          <PartitionRow
            key={detail.partition}
            detail={detail}
            stats={stats}
            clean={showCleanColumn ? controls.topic : null}
          />
        ))}
      </DataTable>
      <UncleanableNotices
        partitions={parsed.flatMap(({ detail, stats }) =>
          stats?.uncleanable ? [{ partition: detail.partition, uncleanable: stats.uncleanable }] : [],
        )}
        {...controls}
      />
    </Card>
  );
}

function PartitionRow({
  detail,
  stats,
  clean,
}: {
  detail: PartitionDetail;
  stats: PartitionStats | null;
  /** The topic, when this member may ask for a pass. */
  clean: string | null;
}) {
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
            {stats.lastCleanAt ? shortDateTime.format(new Date(stats.lastCleanAt)) : "Never"}
          </td>
          <td className="py-2 pr-4">
            <PartitionStatus stats={stats} />
          </td>
          {clean === null ? null : (
            <td className="py-2">
              <CleanPartitionButton topic={clean} partition={detail.partition} verb="Clean now" />
            </td>
          )}
        </>
      ) : (
        <td colSpan={clean === null ? 7 : 8} className="py-2 text-sm text-muted">
          Waiting for the first report from its worker.
        </td>
      )}
    </tr>
  );
}

function PartitionStatus({ stats }: { stats: PartitionStats }) {
  if (stats.uncleanable) {
    return (
      <Disclosure summary={<Badge tone="warning">Uncleanable</Badge>}>{stats.uncleanable.error}</Disclosure>
    );
  }
  if (stats.cleanable) return <Badge tone="accent">Cleaning due</Badge>;
  return <Badge>Healthy</Badge>;
}

type Uncleanable = NonNullable<PartitionStats["uncleanable"]>;

/** Why a partition is not being cleaned, in a sentence, with the way out for those allowed to take it. */
function UncleanableNotices({
  partitions,
  topic,
  canClean,
}: { partitions: readonly { partition: number; uncleanable: Uncleanable }[] } & CleanerControls) {
  if (partitions.length === 0) return null;
  return (
    <ul aria-label="Uncleanable partitions" className="mt-4 flex flex-col gap-2">
      {partitions.map(({ partition, uncleanable }) => (
        <li
          key={partition}
          className="rounded-md border border-amber-500/40 bg-amber-500/10 p-3 text-sm text-amber-800 dark:text-amber-200"
        >
          <p>
            <strong>Partition {partition} cannot be cleaned:</strong>{" "}
            <span className="font-mono text-xs break-all">{uncleanable.error}</span>
          </p>
          <p className="mt-1">{retryPlan(uncleanable)}</p>
          <div className="mt-2">
            {canClean ? (
              <CleanPartitionButton topic={topic} partition={partition} verb="Retry" />
            ) : (
              <span>An owner or admin can retry it from here.</span>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

function retryPlan(uncleanable: Uncleanable): string {
  const passes = uncleanable.failures === 1 ? "1 pass has" : `${uncleanable.failures} passes have`;
  if (uncleanable.held || uncleanable.retryAt === null) {
    return `${passes} failed; the cleaner stopped trying until its config changes or someone retries.`;
  }
  return `${passes} failed; the next automatic attempt is at ${shortDateTime.format(new Date(uncleanable.retryAt))}.`;
}
