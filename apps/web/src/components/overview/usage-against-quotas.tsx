"use client";

import type { RouterOutputs } from "@lastword/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

type Usage = RouterOutputs["tenant"]["usage"];
type Overview = RouterOutputs["tenant"]["overview"];

const count = new Intl.NumberFormat("en");

interface UsageLine {
  name: string;
  href: string;
  used: string;
  limit: string;
  /** used / limit, when the two are the same kind of number (a meter is drawn). */
  share: number | null;
}

const clock = new Intl.DateTimeFormat("en", { timeStyle: "medium", timeZone: "UTC" });

/** The open connections, and how fresh the figure is (the workers' heartbeats it was summed from). */
function connectionsUsed(c: Overview["kafkaConnections"]): string {
  if (c.asOf === null) return "no worker has reported yet";
  const workers = `${count.format(c.workers)} worker${c.workers === 1 ? "" : "s"}`;
  return `${count.format(c.open)} (as of ${clock.format(new Date(c.asOf))} UTC, from ${workers})`;
}

/** Each line says what is used against which limit, in the limit's own terms. */
function usageLines(usage: Usage, overview: Overview): UsageLine[] {
  const q = usage.quota;
  return [
    {
      name: "Partitions",
      href: "/topics",
      used: count.format(usage.partitions),
      limit: count.format(q.maxPartitions),
      share: usage.partitions / q.maxPartitions,
    },
    {
      name: "Storage on the workers' disks",
      href: "/topics",
      used: formatBytes(usage.storedBytes),
      limit: formatBytes(q.maxStoredBytes),
      share: usage.storedBytes / q.maxStoredBytes,
    },
    {
      name: "Storage in object storage",
      href: "/topics",
      used: `${formatBytes(overview.objectStorage.bytes)} in ${count.format(overview.objectStorage.objects)} objects`,
      limit: "not limited (the local copy counts)",
      share: null,
    },
    {
      name: "Produced today (REST)",
      href: "/topics",
      used: formatBytes(usage.today.producedBytes ?? 0),
      limit: `${formatBytes(q.produceBytesPerSecond)}/s, shared with Kafka`,
      share: null,
    },
    {
      // The batches' inflated bytes, as the produce quota charges them: not REST's measure, so apart.
      name: "Produced today (Kafka)",
      href: "/settings",
      used: formatBytes(usage.today.kafkaProducedBytes ?? 0),
      limit: `${formatBytes(q.produceBytesPerSecond)}/s, shared with REST`,
      share: null,
    },
    {
      name: "Fetched today (Kafka)",
      href: "/settings",
      used: formatBytes(usage.today.fetchedBytes ?? 0),
      limit: `${formatBytes(q.fetchBytesPerSecond)}/s per worker`,
      share: null,
    },
    {
      name: "Kafka connections open",
      href: "/api-keys",
      used: connectionsUsed(overview.kafkaConnections),
      limit: `${count.format(q.maxConnectionsPerWorker)} per worker`,
      share: null,
    },
    {
      name: "Kafka clients seen in the last day",
      href: "/api-keys",
      used: count.format(overview.kafkaClientsSeen),
      limit: "not limited",
      share: null,
    },
  ];
}

/** The tenant's usage beside its limits; each line links to where it is managed. */
export function UsageAgainstQuotas() {
  const trpc = useTRPC();
  const usage = useQuery(trpc.tenant.usage.queryOptions());
  const overview = useQuery(trpc.tenant.overview.queryOptions());
  const failed = usage.error ?? overview.error;
  return (
    <Card
      title="Usage"
      description={
        <>
          What this organization uses against its limits (all of them are on{" "}
          <Link href="/settings" className="text-accent underline underline-offset-2">
            Settings
          </Link>
          ).
        </>
      }
    >
      {failed ? (
        <ErrorNotice>We could not load the usage: {failed.message}</ErrorNotice>
      ) : !usage.data || !overview.data ? (
        <StatusNotice>Loading the usage…</StatusNotice>
      ) : (
        <DataTable label="Usage against limits" titles={["What", "Used", "Limit"]}>
          {usageLines(usage.data, overview.data).map((line) => (
            <DataRow
              key={line.name}
              head={
                <Link href={line.href} className="text-accent hover:underline">
                  {line.name}
                </Link>
              }
            >
              <td className="py-2 pr-4">
                <div className="flex items-center gap-2">
                  {line.share === null ? null : (
                    <meter
                      aria-label={`${line.name} used`}
                      min={0}
                      max={1}
                      low={0.7}
                      high={0.9}
                      optimum={0}
                      value={Math.min(1, line.share)}
                      className="h-3 w-24"
                    />
                  )}
                  <span className="tabular-nums">{line.used}</span>
                </div>
              </td>
              <td className="py-2 text-muted">{line.limit}</td>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
