"use client";

import { useQuery } from "@tanstack/react-query";
import { useRef } from "react";
import { humanDuration } from "@/lib/human-duration";
import { lagRisk, lagRiskLabel } from "@/lib/lag-risk";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { DeleteGroupDialog } from "./delete-group-dialog";
import { GroupMembers } from "./group-members";
import { PartitionPositions } from "./partition-positions";
import { ResetOffsetsForm } from "./reset-offsets-form";

const REFRESH_MS = 5_000;
/** Lag samples kept per group for the trend: the last minute at one per refresh. */
const TREND_SAMPLES = 12;

function trendOf(samples: readonly number[]): string {
  if (samples.length < 2) return "Trend: measuring…";
  const change = samples.at(-1)! - samples[0]!;
  const over = humanDuration((samples.length - 1) * REFRESH_MS);
  if (change === 0) return `Trend: steady over the last ${over}`;
  return `Trend: ${change > 0 ? "growing" : "shrinking"} by ${Math.abs(change).toLocaleString("en")} records over the last ${over}`;
}

/** Every consumer group of the tenant, Kafka-protocol and REST alike, refreshed every few seconds. */
export function GroupList() {
  const trpc = useTRPC();
  const groups = useQuery({ ...trpc.consumerGroups.list.queryOptions(), refetchInterval: REFRESH_MS });
  // The lag trend: total lag as sampled on each refresh while the page is open.
  const history = useRef(new Map<string, { at: number; lags: number[] }>());
  if (groups.data) {
    for (const g of groups.data.groups) {
      const entry = history.current.get(g.group) ?? { at: 0, lags: [] };
      if (entry.at !== groups.dataUpdatedAt) {
        entry.at = groups.dataUpdatedAt;
        entry.lags = [...entry.lags, g.totalLag].slice(-TREND_SAMPLES);
        history.current.set(g.group, entry);
      }
    }
  }

  if (groups.isPending) return <StatusNotice>Loading consumer groups…</StatusNotice>;
  if (groups.isError)
    return <ErrorNotice>We could not load consumer groups: {groups.error.message}</ErrorNotice>;
  if (groups.data.groups.length === 0) {
    return (
      <StatusNotice>
        No consumer group has joined or committed a position yet. Kafka consumers that join a group and REST
        clients that commit offsets appear here.
      </StatusNotice>
    );
  }
  return (
    <div className="flex flex-col gap-4">
      {groups.data.groups.map((g) => {
        const state = g.coordinator
          ? g.coordinator.live
            ? `Kafka group, coordinated by worker ${g.coordinator.workerId}`
            : "Kafka group, no live coordinator"
          : "REST consumer (offsets committed over HTTP)";
        return (
          <Card key={g.group} title={g.group} description={state}>
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
              <p className="text-sm text-muted">{trendOf(history.current.get(g.group)?.lags ?? [])}</p>
              <GroupMembers group={g} />
              {g.topics.map((t) => {
                const maxLagMs = t.partitions.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0);
                const label = lagRiskLabel(lagRisk(maxLagMs, t.deleteRetentionMs));
                return (
                  <section
                    key={t.topic}
                    aria-label={`${g.group} on ${t.topic}`}
                    className="flex flex-col gap-2"
                  >
                    <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold">
                      <span className="font-mono">{t.topic}</span>
                      {label ? <Badge tone="warning">{label}</Badge> : null}
                    </h3>
                    <PartitionPositions partitions={t.partitions} />
                  </section>
                );
              })}
              <details className="rounded-md border border-line p-3">
                <summary className="cursor-pointer text-sm font-medium">Reset offsets</summary>
                <div className="mt-3">
                  <ResetOffsetsForm group={g.group} topics={g.topics.map((t) => t.topic)} />
                </div>
              </details>
              <div>
                <DeleteGroupDialog group={g.group} />
              </div>
            </div>
          </Card>
        );
      })}
    </div>
  );
}
