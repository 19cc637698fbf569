"use client";

import type { AppRouter } from "@lastword/api";
import { useQuery } from "@tanstack/react-query";
import type { ColumnDef } from "@tanstack/react-table";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useMemo } from "react";
import { formatDurationMs } from "@/lib/config-units";
import { humanDuration } from "@/lib/human-duration";
import { type LagRisk, lagRisk, lagRiskLabel } from "@/lib/lag-risk";
import { useTRPC } from "@/lib/trpc";
import { ConsumerGroupsTable } from "../groups/consumer-groups-table";
import { groupHref } from "../groups/listed-group";
import { PartitionPositions } from "../groups/partition-positions";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";

const GROUPS_REFRESH_MS = 5_000;

type TopicGroup = inferRouterOutputs<AppRouter>["consumerGroups"]["listForTopic"]["groups"][number];

const riskStyle: Record<LagRisk, string> = {
  ok: "",
  warning: "text-amber-700 dark:text-amber-300",
  near: "font-semibold text-danger",
  past: "font-semibold text-danger",
};

/** The topic's groups (TanStack Table, only the rows in view drawn), sortable by name and lag. */
function TopicGroupTable({ groups, deleteRetentionMs }: { groups: TopicGroup[]; deleteRetentionMs: number }) {
  const columns = useMemo<ColumnDef<TopicGroup>[]>(
    () => [
      {
        id: "group",
        header: "Group",
        accessorKey: "group",
        // The group's own page: its members, positions per partition, resets.
        cell: (c) => (
          <Link
            href={groupHref(c.row.original.group)}
            className="break-all text-accent underline-offset-2 hover:underline"
          >
            {c.row.original.group}
          </Link>
        ),
      },
      { id: "lag", header: "Lag (records)", accessorKey: "totalLag" },
      {
        id: "lagTime",
        header: "Lag (time)",
        accessorKey: "maxLagMs",
        cell: (c) => {
          const risk = lagRisk(c.row.original.maxLagMs, deleteRetentionMs);
          const label = lagRiskLabel(risk);
          return (
            <span className={riskStyle[risk]}>
              {humanDuration(c.row.original.maxLagMs)}
              {label ? (
                <span className="ml-2">
                  <Badge tone="warning">{label}</Badge>
                </span>
              ) : null}
            </span>
          );
        },
      },
      {
        id: "partitions",
        header: "Partitions",
        enableSorting: false,
        cell: (c) => <PartitionPositions partitions={c.row.original.partitions} />,
      },
    ],
    [deleteRetentionMs],
  );
  return (
    <ConsumerGroupsTable
      rows={groups}
      columns={columns}
      getRowId={(g) => g.group}
      cellClassName={(column) =>
        column === "group" ? "font-mono font-medium" : column === "partitions" ? "" : "tabular-nums"
      }
    />
  );
}

export function ConsumerGroups({ topic, deleteRetentionMs }: { topic: string; deleteRetentionMs: number }) {
  const trpc = useTRPC();
  const groups = useQuery({
    ...trpc.consumerGroups.listForTopic.queryOptions({ topic }),
    refetchInterval: GROUPS_REFRESH_MS,
  });
  return (
    <Card
      title="Consumer groups"
      description={`Lag in records and in time. It turns red as it nears delete.retention.ms (${formatDurationMs(deleteRetentionMs)}): past it, a lagging group can miss tombstones.`}
    >
      {groups.isPending ? <StatusNotice>Loading consumer groups…</StatusNotice> : null}
      {groups.isError ? (
        <ErrorNotice>We could not load consumer groups: {groups.error.message}</ErrorNotice>
      ) : null}
      {groups.data && groups.data.groups.length === 0 ? (
        <StatusNotice>No consumer group has committed a position on this topic yet.</StatusNotice>
      ) : null}
      {groups.data && groups.data.groups.length > 0 ? (
        <TopicGroupTable groups={groups.data.groups} deleteRetentionMs={deleteRetentionMs} />
      ) : null}
    </Card>
  );
}
