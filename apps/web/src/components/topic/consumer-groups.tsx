"use client";

import { useQuery } from "@tanstack/react-query";
import { formatDurationMs } from "@/lib/config-units";
import { humanDuration } from "@/lib/human-duration";
import { type LagRisk, lagRisk, lagRiskLabel } from "@/lib/lag-risk";
import { useTRPC } from "@/lib/trpc";
import { PartitionPositions } from "../groups/partition-positions";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

const GROUPS_REFRESH_MS = 5_000;

const riskStyle: Record<LagRisk, string> = {
  ok: "",
  warning: "text-amber-700 dark:text-amber-300",
  near: "font-semibold text-danger",
  past: "font-semibold text-danger",
};

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
        <DataTable label="Consumer groups" titles={["Group", "Lag (records)", "Lag (time)", "Partitions"]}>
          {groups.data.groups.map((group) => {
            const risk = lagRisk(group.maxLagMs, deleteRetentionMs);
            const label = lagRiskLabel(risk);
            return (
              <tr key={group.group} className="border-b border-line last:border-0">
                <th scope="row" className="py-2 pr-4 font-mono font-medium">
                  {group.group}
                </th>
                <td className="py-2 pr-4 tabular-nums">{group.totalLag}</td>
                <td className={`py-2 pr-4 tabular-nums ${riskStyle[risk]}`}>
                  {humanDuration(group.maxLagMs)}
                  {label ? (
                    <span className="ml-2">
                      <Badge tone="warning">{label}</Badge>
                    </span>
                  ) : null}
                </td>
                <td className="py-2">
                  <PartitionPositions partitions={group.partitions} />
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
    </Card>
  );
}
