"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { GroupDetail } from "./group-detail";

const REFRESH_MS = 5_000;
const TREND_REFRESH_MS = 15_000;
const TREND_MINUTES = 60;

/** One consumer group's own page (linkable): the group's details, refreshed every few seconds. */
export function GroupPage({ group }: { group: string }) {
  const trpc = useTRPC();
  const listed = useQuery({
    ...trpc.consumerGroups.list.queryOptions({ group }),
    refetchInterval: REFRESH_MS,
  });
  const history = useQuery({
    ...trpc.consumerGroups.lagHistory.queryOptions({ minutes: TREND_MINUTES }),
    refetchInterval: TREND_REFRESH_MS,
  });
  const found = listed.data?.groups.find((g) => g.group === group);
  const trend = history.data?.groups.find((g) => g.group === group)?.lag ?? [];
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <Link href="/consumer-groups" className="text-sm text-muted underline-offset-2 hover:underline">
          ← All consumer groups
        </Link>
        <h1 className="font-mono text-2xl font-semibold tracking-tight break-all">{group}</h1>
      </div>
      {listed.isPending ? <StatusNotice>Loading consumer group {group}…</StatusNotice> : null}
      {listed.isError ? (
        <ErrorNotice>
          We could not load consumer group {group}: {listed.error.message}
        </ErrorNotice>
      ) : null}
      {listed.data && !found ? (
        <ErrorNotice>
          There is no consumer group {group} in this organization: it never committed a position, or it was
          deleted.
        </ErrorNotice>
      ) : null}
      {found ? <GroupDetail group={found} trend={trend} /> : null}
    </div>
  );
}
