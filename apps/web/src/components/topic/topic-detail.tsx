"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { parsePartitionStats } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { PolicyBadge } from "../topics/policy-badge";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { CleanerRuns } from "./cleaner-runs";
import { ConfigTable } from "./config-table";
import { ConsumerGroups } from "./consumer-groups";
import { DeleteKeyForm } from "./delete-key-form";
import { MessageBrowser } from "./message-browser";
import { PartitionTable } from "./partition-table";
import { ProduceForm } from "./produce-form";
import { SegmentBars } from "./segment-bars";
import { TopicWarnings } from "./topic-warnings";

/** Workers report partition stats every scheduler tick; refresh at about that pace. */
const STATS_REFRESH_MS = 5_000;

export function TopicDetail({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const detail = useQuery({ ...trpc.topics.get.queryOptions({ topic }), refetchInterval: STATS_REFRESH_MS });

  if (detail.isPending) return <StatusNotice>Loading topic {topic}…</StatusNotice>;
  if (detail.isError) {
    return (
      <div className="flex flex-col gap-4">
        <ErrorNotice>
          We could not load topic {topic}: {detail.error.message}
        </ErrorNotice>
        <BackLink />
      </div>
    );
  }
  const data = detail.data;
  const deleteRetentionMs = Number(
    data.configEntries.find((entry) => entry.name === "delete.retention.ms")?.value ?? 86_400_000,
  );
  // The last worker report; a read answers with the live bounds and the browser shows those.
  const boundsOf = (partition: number) => {
    const stats = parsePartitionStats(data.partitionDetails.find((p) => p.partition === partition)?.stats);
    return { logStartOffset: stats?.logStartOffset ?? 0, logEndOffset: stats?.logEndOffset ?? 0 };
  };
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <BackLink />
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="font-mono text-2xl font-semibold tracking-tight">{data.name}</h1>
          <PolicyBadge policy={data.cleanupPolicy} />
          <p className="text-sm text-muted">
            {data.partitions} {data.partitions === 1 ? "partition" : "partitions"}
          </p>
        </div>
      </div>
      <TopicWarnings warnings={data.warnings} />
      <PartitionTable partitions={data.partitionDetails} />
      <SegmentBars topic={data.name} partitions={data.partitions} />
      <MessageBrowser topic={data.name} partitions={data.partitions} boundsOf={boundsOf} />
      <div className="grid gap-6 lg:grid-cols-2">
        <ProduceForm topic={data.name} partitions={data.partitions} />
        <DeleteKeyForm topic={data.name} />
      </div>
      <ConsumerGroups topic={data.name} deleteRetentionMs={deleteRetentionMs} />
      <CleanerRuns topic={data.name} />
      <ConfigTable topic={data.name} entries={data.configEntries} />
    </div>
  );
}

function BackLink() {
  return (
    <Link href="/topics" className="text-sm text-muted underline-offset-2 hover:underline">
      ← All topics
    </Link>
  );
}
