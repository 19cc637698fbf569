"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { TimeChart, type TimeSeries } from "../ui/time-chart";

/** Owners write one sample a minute (rewritten every few seconds); half a minute keeps up. */
const HISTORY_REFRESH_MS = 30_000;
const HISTORY_MINUTES = 60;
const LAG_COLORS = ["var(--color-accent)", "#0891b2", "#d97706", "#db2777", "#059669", "#7c3aed"];
const count = (n: number) => Math.round(n).toLocaleString("en");

function useTopicHistory(topic: string) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.topics.history.queryOptions({ topic, minutes: HISTORY_MINUTES }),
    refetchInterval: HISTORY_REFRESH_MS,
  });
}

/** Loading, failure and "nothing yet" in the chart's own place, so the page never jumps. */
function HistoryState({ history, empty }: { history: ReturnType<typeof useTopicHistory>; empty: ReactNode }) {
  if (history.isPending) return <StatusNotice>Loading the last hour…</StatusNotice>;
  if (history.isError)
    return <ErrorNotice>We could not load the history: {history.error.message}</ErrorNotice>;
  return <StatusNotice>{empty}</StatusNotice>;
}

/** One chart of the traffic card under its heading, or the history's state in its place. */
function HistoryPanel<Point extends { at: number }>({
  title,
  history,
  kind,
  points,
  series,
  format,
}: {
  title: string;
  history: ReturnType<typeof useTopicHistory>;
  kind?: "line" | "bar";
  points: readonly Point[];
  series: readonly TimeSeries[];
  format: (value: number) => string;
}) {
  return (
    <div className="min-w-0">
      <h3 className="mb-2 text-sm font-medium">{title}</h3>
      {points.length > 0 ? (
        <TimeChart label={title} kind={kind} points={points} series={series} format={format} />
      ) : (
        <HistoryState history={history} empty="No samples yet: the partitions' owner writes one a minute." />
      )}
    </div>
  );
}

/**
 * The last hour per minute: records produced (no bar for the first sampled minute, which has no
 * minute before it) and fetched, and stored against live bytes.
 */
export function TopicTrafficCharts({ topic }: { topic: string }) {
  const history = useTopicHistory(topic);
  const minutes = (history.data?.minutes ?? []).map((m) => ({ ...m, at: Date.parse(m.at) }));
  return (
    <Card
      title="Traffic and size over the last hour"
      description="Per minute, from the partitions' owners: records appended to the topic and served to readers (REST and Kafka), and its stored bytes against the live ones (what compaction would keep)."
    >
      <div className="grid gap-6 lg:grid-cols-2">
        <HistoryPanel
          title="Records produced and fetched per minute"
          history={history}
          kind="bar"
          points={minutes}
          series={[
            { key: "producedRecords", name: "Produced", color: "var(--color-accent)" },
            { key: "fetchedRecords", name: "Fetched", color: "#0891b2" },
          ]}
          format={count}
        />
        <HistoryPanel
          title="Stored vs live bytes"
          history={history}
          points={minutes}
          series={[
            { key: "sizeBytes", name: "Stored", color: "var(--color-accent)" },
            { key: "liveBytes", name: "Live", color: "#059669" },
          ]}
          format={formatBytes}
        />
      </div>
    </Card>
  );
}

/** Each consumer group's lag on this topic (records behind the end, all partitions) over the last hour. */
export function GroupLagChart({ topic }: { topic: string }) {
  const history = useTopicHistory(topic);
  const groups = history.data?.groups ?? [];
  // One point per minute with a field per group, as recharts draws several lines from one row.
  const byMinute = new Map<number, { at: number } & Record<string, number | null>>();
  groups.forEach((group, i) => {
    for (const point of group.lag) {
      const at = Date.parse(point.at);
      const row = byMinute.get(at) ?? { at };
      row[`g${i}`] = point.records;
      byMinute.set(at, row);
    }
  });
  const points = [...byMinute.values()].sort((a, b) => a.at - b.at);
  return (
    <Card
      title="Consumer lag over the last hour"
      description="Per minute, each group's records between its committed offsets and the end of every partition."
    >
      {points.length > 0 ? (
        <TimeChart
          label="Consumer lag per group"
          points={points}
          series={groups.map((group, i) => ({
            key: `g${i}`,
            name: group.group,
            color: LAG_COLORS[i % LAG_COLORS.length] ?? "currentColor",
          }))}
          format={count}
        />
      ) : (
        <HistoryState
          history={history}
          empty="No group has committed an offset on this topic in the last hour."
        />
      )}
    </Card>
  );
}
