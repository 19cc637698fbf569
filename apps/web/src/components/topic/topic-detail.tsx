"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useConsoleAccess } from "@/lib/console-access";
import { draftFromRecord } from "@/lib/produce-draft";
import type { BrowsedRecord } from "@/lib/record-export";
import { useTRPC } from "@/lib/trpc";
import { ListedKeyKafkaSettings } from "../kafka/listed-key-kafka-settings";
import { PolicyBadge } from "../topics/policy-badge";
import { Card } from "../ui/card";
import { ErrorNotice, RefreshFailedNotice, StatusNotice } from "../ui/notice";
import { CleanerRuns } from "./cleaner-runs";
import { ConfigTable } from "./config-table";
import { ConsumerGroups } from "./consumer-groups";
import { DeleteKeyForm } from "./delete-key-form";
import { DirtyRatioChart } from "./dirty-ratio-chart";
import { DurabilityCard } from "./durability-card";
import { KafkaClients } from "./kafka-clients";
import { KeySearch } from "./key-search";
import { LatestValues } from "./latest-values";
import { MessageBrowser } from "./message-browser";
import { PartitionTable } from "./partition-table";
import { type DraftSeed, ProduceForm } from "./produce-form";
import { SegmentBars } from "./segment-bars";
import { TopicAdminActions } from "./topic-admin-actions";
import { GroupLagChart, TopicTrafficCharts } from "./topic-history-charts";
import { TopicSchemas } from "./topic-schemas";
import { TopicTabs } from "./topic-tabs";
import { TopicWarnings } from "./topic-warnings";

/** Workers report partition stats every scheduler tick; refresh at about that pace. */
const STATS_REFRESH_MS = 5_000;

export function TopicDetail({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const detail = useQuery({ ...trpc.topics.get.queryOptions({ topic }), refetchInterval: STATS_REFRESH_MS });
  const access = useConsoleAccess();

  if (detail.isPending) return <StatusNotice>Loading topic {topic}…</StatusNotice>;
  if (detail.isError && detail.data === undefined) {
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
  // Every config entry carries its effective value (set or default).
  const configValue = (name: string) => data.configEntries.find((entry) => entry.name === name)?.value;
  const deleteRetentionMs = Number(configValue("delete.retention.ms") ?? 86_400_000);
  const compacted = data.cleanupPolicy.includes("compact");
  return (
    <div className="flex flex-col gap-6">
      {detail.isError ? <RefreshFailedNotice error={detail.error} /> : null}
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
      <TopicTabs
        panels={{
          overview: (
            <>
              <PartitionTable
                partitions={data.partitionDetails}
                topic={data.name}
                compacted={compacted}
                canClean={access.can("admin")}
              />
              <DurabilityCard topic={data.name} />
              {access.can("schemas:read") ? <TopicSchemas topic={data.name} /> : null}
              <TopicTrafficCharts topic={data.name} />
              <ListedKeyKafkaSettings topic={data.name} />
              {access.can("topics:write") ? (
                <TopicAdminActions topic={data.name} partitions={data.partitions} compacted={compacted} />
              ) : null}
            </>
          ),
          messages: <RecordViews topic={data.name} partitions={data.partitions} access={access} />,
          consumers: (
            <>
              <ConsumerGroups topic={data.name} deleteRetentionMs={deleteRetentionMs} />
              <GroupLagChart topic={data.name} />
              <KafkaClients topic={data.name} />
            </>
          ),
          segments: (
            <>
              <SegmentBars topic={data.name} partitions={data.partitions} />
              {compacted ? (
                <DirtyRatioChart
                  topic={data.name}
                  partitions={data.partitionDetails}
                  minCleanableDirtyRatio={Number(configValue("min.cleanable.dirty.ratio") ?? 0.5)}
                />
              ) : null}
              <CleanerRuns topic={data.name} />
            </>
          ),
          configs: <ConfigTable topic={data.name} entries={data.configEntries} />,
        }}
      />
    </div>
  );
}

/**
 * Record values are for members with records:read; the compliance role has topic metadata only,
 * so it gets a sentence instead of the browser, key search and latest values. Writing needs
 * records:write. Until the member's scopes load, neither is offered.
 */
function RecordViews(props: {
  topic: string;
  partitions: number;
  access: ReturnType<typeof useConsoleAccess>;
}) {
  // "Produce again" in the message browser's record drawer fills the produce form below it.
  const [seed, setSeed] = useState<DraftSeed | null>(null);
  const produceAgain = (record: BrowsedRecord) =>
    setSeed((last) => ({ id: (last?.id ?? 0) + 1, draft: draftFromRecord(record) }));
  if (!props.access.ready) return <StatusNotice>Checking what your role may see…</StatusNotice>;
  return (
    <>
      {props.access.can("records:read") ? (
        <>
          <MessageBrowser
            topic={props.topic}
            partitions={props.partitions}
            onProduceAgain={props.access.can("records:write") ? produceAgain : undefined}
          />
          <KeySearch topic={props.topic} />
          <LatestValues topic={props.topic} />
        </>
      ) : (
        <Card title="Messages">
          <p role="status" className="text-sm text-muted">
            Your role ({props.access.role ?? "this key"}) cannot read records, so message keys and values are
            not shown here. Partitions, segments, the cleaner, consumers and configs in the other tabs are
            yours to see.
          </p>
        </Card>
      )}
      {props.access.can("records:write") ? (
        <div className="grid gap-6 lg:grid-cols-2">
          <ProduceForm topic={props.topic} partitions={props.partitions} seed={seed} />
          <DeleteKeyForm topic={props.topic} />
        </div>
      ) : null}
    </>
  );
}

function BackLink() {
  return (
    <Link href="/topics" className="text-sm text-muted underline-offset-2 hover:underline">
      ← All topics
    </Link>
  );
}
