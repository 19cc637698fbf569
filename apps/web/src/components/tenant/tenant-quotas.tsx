"use client";

import { useQuery } from "@tanstack/react-query";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

type Quota = Record<string, number>;

const count = new Intl.NumberFormat("en");

/** Each limit in the order shown: its name in the API (and in error messages), what it bounds, its unit. */
const LIMITS: { name: string; meaning: string; show: (value: number) => string }[] = [
  { name: "maxPartitions", meaning: "Partitions over all topics", show: count.format },
  { name: "maxStoredBytes", meaning: "Bytes stored over all partitions", show: formatBytes },
  {
    name: "produceBytesPerSecond",
    meaning: "Bytes produced per second (REST and Kafka, inflated)",
    show: formatBytes,
  },
  { name: "requestsPerSecond", meaning: "REST requests per second", show: count.format },
  { name: "maxConnectionsPerWorker", meaning: "Kafka connections open to one worker", show: count.format },
  {
    name: "connectionsPerSecond",
    meaning: "Kafka connections opened on one worker per second",
    show: count.format,
  },
  {
    name: "maxBatchInflatedBytes",
    meaning: "Bytes one compressed record batch may decompress to",
    show: formatBytes,
  },
  {
    name: "maxRequestInflatedBytes",
    meaning: "Bytes the batches of one Produce request may decompress to",
    show: formatBytes,
  },
  { name: "maxBatchRecords", meaning: "Records in one record batch", show: count.format },
  {
    name: "requestTimeMsPerSecond",
    meaning: "Milliseconds a second Kafka requests may keep one worker busy",
    show: (ms) => `${count.format(ms)} ms/s`,
  },
  {
    name: "fetchBytesPerSecond",
    meaning: "Bytes Kafka fetches may read from one worker per second",
    show: formatBytes,
  },
  { name: "erasureDeadlineDays", meaning: "Days an erasure request may take", show: count.format },
];

/** The tenant's quotas, as `lastword tenant show` prints them. */
export function TenantQuotas() {
  const trpc = useTRPC();
  const usage = useQuery(trpc.tenant.usage.queryOptions());
  if (usage.isPending) return <StatusNotice>Loading the tenant's limits…</StatusNotice>;
  if (usage.isError) return <ErrorNotice>We could not load the limits: {usage.error.message}</ErrorNotice>;
  const quota: Quota = usage.data.quota;
  return (
    <Card title="Limits">
      <DataTable label="Tenant limits" titles={["Limit", "Value", "Bounds"]}>
        {LIMITS.map((limit) => (
          <DataRow key={limit.name} head={<code>{limit.name}</code>}>
            <td className="py-2 pr-4 tabular-nums">{limit.show(quota[limit.name] ?? 0)}</td>
            <td className="py-2 text-muted">{limit.meaning}</td>
          </DataRow>
        ))}
      </DataTable>
    </Card>
  );
}
