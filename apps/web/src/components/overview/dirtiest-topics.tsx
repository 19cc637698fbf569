"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { DirtyRatioMeter } from "../topic/dirty-ratio-meter";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

/** The compacted topics the cleaner is furthest behind on, by dirty bytes. */
export function DirtiestTopics() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.tenant.overview.queryOptions());
  const topics = overview.data?.dirtiestTopics;
  return (
    <Card
      title="Most dirty bytes"
      description="Compacted topics holding the most bytes the cleaner has yet to compact."
    >
      {overview.isError ? (
        <ErrorNotice>We could not load the topics: {overview.error.message}</ErrorNotice>
      ) : !topics ? (
        <StatusNotice>Loading the topics…</StatusNotice>
      ) : topics.length === 0 ? (
        <StatusNotice>No compacted topic has dirty bytes.</StatusNotice>
      ) : (
        <DataTable label="Topics with the most dirty bytes" titles={["Topic", "Dirty", "Dirty ratio"]}>
          {topics.map((t) => (
            <DataRow
              key={t.topic}
              head={
                <Link href={`/topics/${encodeURIComponent(t.topic)}`} className="text-accent hover:underline">
                  {t.topic}
                </Link>
              }
            >
              <td className="py-2 pr-4 tabular-nums whitespace-nowrap">
                {formatBytes(t.dirtyBytes)} of {formatBytes(t.sizeBytes)}
              </td>
              <td className="py-2">
                <DirtyRatioMeter ratio={t.dirtyRatio} label={`${t.topic} dirty ratio`} />
              </td>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
