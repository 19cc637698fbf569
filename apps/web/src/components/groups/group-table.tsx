"use client";

import type { ColumnDef } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo } from "react";
import { humanDuration } from "@/lib/human-duration";
import { lagRiskLabel } from "@/lib/lag-risk";
import { type LagPoint, lagChange, lagTrend } from "@/lib/lag-trend";
import { Badge } from "../ui/badge";
import { ConsumerGroupsTable } from "./consumer-groups-table";
import { STATE_LABELS } from "./group-members";
import { groupHref, type ListedGroup, worstRisk } from "./listed-group";

const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "short" });

interface GroupRow {
  group: ListedGroup;
  trend: readonly LagPoint[];
}

function stateOf(group: ListedGroup): string {
  if (group.protocol === "rest") return "—";
  if (group.membership) return STATE_LABELS[group.membership.state];
  // Membership could not be read (its coordinator did not answer).
  return "Unknown";
}

/**
 * Every group in one table (TanStack Table, only the rows in view drawn): name, protocol, state,
 * members, lag in records and in time, the lag trend from the stored samples, the worst tombstone
 * risk and the last commit. Headers sort; a group's name links to its own page.
 */
export function GroupTable(props: {
  groups: readonly ListedGroup[];
  trends: ReadonlyMap<string, readonly LagPoint[]>;
}) {
  const rows = useMemo(
    () => props.groups.map((group) => ({ group, trend: props.trends.get(group.group) ?? [] })),
    [props.groups, props.trends],
  );
  const columns = useMemo<ColumnDef<GroupRow>[]>(
    () => [
      {
        id: "group",
        header: "Group",
        accessorFn: (r) => r.group.group,
        cell: (c) => {
          const name = c.row.original.group.group;
          return (
            <Link
              href={groupHref(name)}
              className="text-left font-mono break-all text-accent underline-offset-2 hover:underline sm:whitespace-nowrap"
            >
              {name}
            </Link>
          );
        },
      },
      {
        id: "protocol",
        header: "Protocol",
        accessorFn: (r) => r.group.protocol,
        cell: (c) => (
          <Badge tone="accent">{c.row.original.group.protocol === "kafka" ? "Kafka" : "REST"}</Badge>
        ),
      },
      { id: "state", header: "State", accessorFn: (r) => stateOf(r.group) },
      {
        id: "members",
        header: "Members",
        accessorFn: (r) => r.group.membership?.members.length ?? -1,
        cell: (c) => {
          const members = c.row.original.group.membership?.members.length;
          return members === undefined ? "—" : members;
        },
      },
      {
        id: "lag",
        header: "Lag",
        accessorFn: (r) => r.group.totalLag,
        cell: (c) => `${c.row.original.group.totalLag.toLocaleString("en")} records`,
      },
      {
        id: "lagTime",
        header: "Oldest unread",
        accessorFn: (r) => r.group.maxLagMs,
        cell: (c) => humanDuration(c.row.original.group.maxLagMs),
      },
      {
        id: "trend",
        header: "Trend (last hour)",
        accessorFn: (r) => lagChange(r.trend),
        cell: (c) => lagTrend(c.row.original.trend),
      },
      {
        id: "risk",
        header: "Tombstones",
        accessorFn: (r) => ["ok", "warning", "near", "past"].indexOf(worstRisk(r.group)),
        cell: (c) => {
          const label = lagRiskLabel(worstRisk(c.row.original.group));
          return label ? <Badge tone="warning">{label}</Badge> : <span className="text-muted">In time</span>;
        },
      },
      {
        id: "lastCommit",
        header: "Last commit",
        accessorFn: (r) => r.group.lastCommitAt ?? "",
        cell: (c) => {
          const at = c.row.original.group.lastCommitAt;
          return at ? timeFormat.format(new Date(at)) : "Never";
        },
      },
    ],
    [],
  );
  return (
    <ConsumerGroupsTable
      rows={rows}
      columns={columns}
      getRowId={(r) => r.group.group}
      cellClassName={(column) =>
        ["lag", "lagTime", "members"].includes(column)
          ? "tabular-nums whitespace-nowrap"
          : column === "lastCommit" || column === "trend"
            ? "text-xs text-muted"
            : ""
      }
    />
  );
}
