"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ReferenceLine } from "recharts";
import { shortDateTime } from "@/lib/date-time-formats";
import { dirtyRatioHistory, type RatioPoint } from "@/lib/dirty-ratio-history";
import { partitionNumbers } from "@/lib/partition-numbers";
import { parsePartitionStats } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { ColumnHeads } from "../ui/column-heads";
import { SelectField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { TimeChart } from "../ui/time-chart";

const RUNS_REFRESH_MS = 5_000;
/** Enough passes to see the sawtooth of a busy partition without paging the history. */
const HISTORY_RUNS = 200;
const CHART_HEIGHT_PX = 224;
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;

interface PartitionReport {
  partition: number;
  stats: Record<string, unknown> | null;
}

/**
 * Dirty ratio over time for one partition, from its cleaner runs (the ratio each pass saw and left)
 * and the worker's current report, against min.cleanable.dirty.ratio: above the line a pass is due.
 */
export function DirtyRatioChart(props: {
  topic: string;
  partitions: readonly PartitionReport[];
  minCleanableDirtyRatio: number;
}) {
  const [partition, setPartition] = useState(0);
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.topics.cleanerRuns.queryOptions({ topic: props.topic, partition, limit: HISTORY_RUNS }),
    refetchInterval: RUNS_REFRESH_MS,
  });
  const stats = parsePartitionStats(props.partitions.find((p) => p.partition === partition)?.stats);
  const current = stats ? { ratio: stats.dirtyRatio, at: Date.parse(stats.updatedAt) } : null;
  const points = runs.data ? dirtyRatioHistory(runs.data.runs, current) : [];
  const threshold = props.minCleanableDirtyRatio;

  return (
    <Card
      title="Dirty ratio over time"
      description={`The share of partition ${partition}'s cleanable bytes written since its last pass. Above the dashed line (min.cleanable.dirty.ratio = ${threshold}) the cleaner is due; each pass drops it.`}
    >
      <div className="mb-3 w-48">
        <SelectField
          label="Partition"
          value={partition}
          onChange={(event) => setPartition(Number(event.target.value))}
        >
          {partitionNumbers(props.partitions.length).map((index) => (
            <option key={index} value={index}>
              {index}
            </option>
          ))}
        </SelectField>
      </div>
      {/* Fixed height in every state, so loading and refetches never move the page. */}
      <div style={{ height: CHART_HEIGHT_PX }}>
        {runs.isPending ? <StatusNotice>Loading the dirty-ratio history…</StatusNotice> : null}
        {runs.isError ? (
          <ErrorNotice>We could not load the cleaner runs: {runs.error.message}</ErrorNotice>
        ) : null}
        {runs.data && points.length === 0 ? (
          <StatusNotice>
            Partition {partition} has no dirty-ratio history yet: no pass and no report.
          </StatusNotice>
        ) : null}
        {points.length > 0 ? (
          <TimeChart
            label={`Partition ${partition} dirty ratio over time`}
            points={points}
            series={[{ key: "ratio", name: "Dirty ratio", color: "var(--color-accent)" }]}
            format={percent}
            y={{ domain: [0, 1], ticks: [0, 0.25, 0.5, 0.75, 1] }}
            tooltip={(ratio, point) => [percent(ratio), point.kind]}
          >
            <ReferenceLine
              y={threshold}
              stroke="var(--color-danger)"
              strokeDasharray="6 4"
              label={{
                value: `min.cleanable.dirty.ratio ${percent(threshold)}`,
                position: "insideTopRight",
                fill: "currentColor",
                fontSize: 11,
              }}
            />
          </TimeChart>
        ) : null}
      </div>
      {points.length > 0 ? <RatioTable partition={partition} points={points} /> : null}
    </Card>
  );
}

/** The chart's numbers as a table, for screen readers and for anyone who wants the values. */
function RatioTable({ partition, points }: { partition: number; points: readonly RatioPoint[] }) {
  return (
    <details className="mt-3 text-sm">
      <summary className="cursor-pointer text-muted">Show the {points.length} points as a table</summary>
      <table aria-label={`Partition ${partition} dirty ratio history`} className="mt-2 text-left">
        <ColumnHeads titles={["Time", "Dirty ratio", "Point"]} />
        <tbody>
          {points.map((point) => (
            <tr key={`${point.at}-${point.kind}`}>
              <td className="pr-4 text-xs whitespace-nowrap">{shortDateTime.format(point.at)}</td>
              <td className="pr-4 tabular-nums">{percent(point.ratio)}</td>
              <td className="text-muted">{point.kind}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
