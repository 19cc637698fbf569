"use client";

import { useRef, useState } from "react";
import { humanDuration } from "@/lib/human-duration";
import { lagRisk, lagRiskLabel } from "@/lib/lag-risk";
import { type LagPoint, lagTrend } from "@/lib/lag-trend";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { StatusNotice } from "../ui/notice";
import { TimeChart } from "../ui/time-chart";
import { DeleteGroupDialog } from "./delete-group-dialog";
import { GroupMembers } from "./group-members";
import { GroupPartitions } from "./group-partitions";
import { coordination, type ListedGroup } from "./listed-group";
import { ResetOffsetsForm, type ResetPreset } from "./reset-offsets-form";

const count = (n: number) => Math.round(n).toLocaleString("en");

/** One group (its page): its facts, lag over the last hour, members, positions per partition and actions. */
export function GroupDetail({ group: g, trend }: { group: ListedGroup; trend: readonly LagPoint[] }) {
  const points = trend.map((p) => ({ at: Date.parse(p.at), records: p.records }));
  const [resetOpen, setResetOpen] = useState(false);
  const [preset, setPreset] = useState<ResetPreset | null>(null);
  const resetFrame = useRef<HTMLDetailsElement>(null);
  // A partition's Reset button opens the form below on that partition, and brings it into view.
  const resetPartition = (topic: string, partition: number) => {
    setPreset((last) => ({ id: (last?.id ?? 0) + 1, topic, partition }));
    setResetOpen(true);
    requestAnimationFrame(() => resetFrame.current?.scrollIntoView({ block: "nearest" }));
  };
  return (
    <Card title={g.group} description={coordination(g)}>
      <div className="flex flex-col gap-4">
        <dl className="grid gap-3 text-sm sm:grid-cols-4">
          <div>
            <dt className="text-muted">Protocol</dt>
            <dd>
              <Badge tone="accent">{g.protocol === "kafka" ? "Kafka" : "REST"}</Badge>
            </dd>
          </div>
          <div>
            <dt className="text-muted">Lag</dt>
            <dd className="tabular-nums">{g.totalLag.toLocaleString("en")} records</dd>
          </div>
          <div>
            <dt className="text-muted">Oldest unread</dt>
            <dd className="tabular-nums">{humanDuration(g.maxLagMs)}</dd>
          </div>
          <div>
            <dt className="text-muted">Last commit</dt>
            <dd>{g.lastCommitAt ? new Date(g.lastCommitAt).toLocaleString("en") : "never"}</dd>
          </div>
        </dl>
        <div className="min-w-0">
          <h3 className="mb-2 text-sm font-medium">Lag over the last hour: {lagTrend(trend)}</h3>
          {points.length > 0 ? (
            <TimeChart
              label={`Lag of ${g.group} over the last hour`}
              points={points}
              series={[{ key: "records", name: "Records behind", color: "var(--color-accent)" }]}
              format={count}
            />
          ) : (
            <StatusNotice>
              No lag sample yet: the partitions' owners write one a minute for every group that committed.
            </StatusNotice>
          )}
        </div>
        <GroupMembers group={g} />
        {g.topics.map((t) => {
          const maxLagMs = t.partitions.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0);
          const label = lagRiskLabel(lagRisk(maxLagMs, t.deleteRetentionMs));
          return (
            <section key={t.topic} aria-label={`${g.group} on ${t.topic}`} className="flex flex-col gap-2">
              <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold">
                <span className="font-mono">{t.topic}</span>
                {label ? <Badge tone="warning">{label}</Badge> : null}
              </h3>
              <GroupPartitions group={g} topic={t} onReset={resetPartition} />
            </section>
          );
        })}
        <details
          ref={resetFrame}
          open={resetOpen}
          onToggle={(event) => setResetOpen(event.currentTarget.open)}
          className="rounded-md border border-line p-3"
        >
          <summary className="cursor-pointer text-sm font-medium">Reset offsets</summary>
          <div className="mt-3">
            <ResetOffsetsForm
              group={g.group}
              topics={g.topics.map((t) => ({
                topic: t.topic,
                partitions: t.partitions.map((p) => p.partition),
              }))}
              preset={preset}
            />
          </div>
        </details>
        <div>
          <DeleteGroupDialog group={g.group} />
        </div>
      </div>
    </Card>
  );
}
