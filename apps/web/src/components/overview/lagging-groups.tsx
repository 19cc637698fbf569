"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useConsoleAccess } from "@/lib/console-access";
import { humanDuration } from "@/lib/human-duration";
import { laggingPastRetention } from "@/lib/lagging-groups";
import { useTRPC } from "@/lib/trpc";
import { groupHref } from "../groups/listed-group";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

/** Groups lagging further behind a topic than its delete.retention.ms: they may have missed deletes. */
export function LaggingGroups() {
  const access = useConsoleAccess();
  return (
    <Card
      title="Groups past tombstone expiry"
      description="Consumer groups whose oldest unread record is older than the topic's delete.retention.ms: they may have missed tombstones."
    >
      {!access.ready ? (
        <StatusNotice>Loading…</StatusNotice>
      ) : access.can("groups:read") ? (
        <Lagging />
      ) : (
        <StatusNotice>Your role does not see consumer groups.</StatusNotice>
      )}
    </Card>
  );
}

function Lagging() {
  const trpc = useTRPC();
  const list = useQuery(trpc.consumerGroups.list.queryOptions());
  if (list.isError) return <ErrorNotice>We could not load the groups: {list.error.message}</ErrorNotice>;
  if (!list.data) return <StatusNotice>Loading the groups…</StatusNotice>;
  const lagging = laggingPastRetention(list.data.groups);
  if (lagging.length === 0)
    return <StatusNotice>No group lags past its topic's delete.retention.ms.</StatusNotice>;
  return (
    <DataTable label="Groups past tombstone expiry" titles={["Group", "Topic", "Lag", "delete.retention.ms"]}>
      {lagging.map((l) => (
        <DataRow
          key={`${l.group}/${l.topic}`}
          head={
            <Link href={groupHref(l.group)} className="text-accent hover:underline">
              {l.group}
            </Link>
          }
        >
          <td className="py-2 pr-4">
            <Link href={`/topics/${encodeURIComponent(l.topic)}`} className="text-accent hover:underline">
              {l.topic}
            </Link>
          </td>
          <td className="py-2 pr-4 whitespace-nowrap">{humanDuration(l.lagMs)}</td>
          <td className="py-2 whitespace-nowrap text-muted">{humanDuration(l.deleteRetentionMs)}</td>
        </DataRow>
      ))}
    </DataTable>
  );
}
