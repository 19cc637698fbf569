"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { LagPoint } from "@/lib/lag-trend";
import { useTRPC } from "@/lib/trpc";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { GroupTable } from "./group-table";

const REFRESH_MS = 5_000;
/** The workers write one lag sample a minute (rewritten every few seconds); a quarter minute keeps up. */
const TREND_REFRESH_MS = 15_000;
const TREND_MINUTES = 60;

/**
 * Every consumer group of the tenant, Kafka-protocol and REST alike, refreshed every few seconds:
 * the table of all of them with the lag trend from the samples the workers store; each group's
 * name links to its own page.
 */
export function GroupList() {
  const trpc = useTRPC();
  const groups = useQuery({ ...trpc.consumerGroups.list.queryOptions(), refetchInterval: REFRESH_MS });
  const history = useQuery({
    ...trpc.consumerGroups.lagHistory.queryOptions({ minutes: TREND_MINUTES }),
    refetchInterval: TREND_REFRESH_MS,
  });
  const trends = useMemo(
    () => new Map<string, readonly LagPoint[]>((history.data?.groups ?? []).map((g) => [g.group, g.lag])),
    [history.data],
  );

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
      <p className="text-sm text-muted">
        {groups.data.groups.length.toLocaleString("en")}{" "}
        {groups.data.groups.length === 1 ? "group" : "groups"}. Open one by its name for its members,
        positions, lag over the last hour, offset resets and deletion.
      </p>
      <GroupTable groups={groups.data.groups} trends={trends} />
    </div>
  );
}
