"use client";

import { useQuery } from "@tanstack/react-query";
import { formatDurationMs } from "@/lib/config-units";
import { shortDateTime } from "@/lib/date-time-formats";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { Disclosure } from "../ui/disclosure";
import { ErrorNotice, StatusNotice } from "../ui/notice";

const RUNS_REFRESH_MS = 5_000;

/** The cleaner at work: each pass, what it read and wrote, and what it removed. */
export function CleanerRuns({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.topics.cleanerRuns.queryOptions({ topic, limit: 20 }),
    refetchInterval: RUNS_REFRESH_MS,
  });
  return (
    <Card title="Cleaner runs" description="The most recent compaction passes over this topic's partitions.">
      {runs.isPending ? <StatusNotice>Loading cleaner runs…</StatusNotice> : null}
      {runs.isError ? <ErrorNotice>We could not load cleaner runs: {runs.error.message}</ErrorNotice> : null}
      {runs.data && runs.data.runs.length === 0 ? (
        <StatusNotice>The cleaner has not run on this topic yet.</StatusNotice>
      ) : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <DataTable
          label="Cleaner runs"
          titles={[
            "Started",
            "Partition",
            "Duration",
            "Reclaimed",
            "Records removed",
            "Tombstones removed",
            "Result",
          ]}
        >
          {runs.data.runs.map((run) => (
            <DataRow
              key={run.id}
              headClassName="text-xs font-normal whitespace-nowrap"
              head={shortDateTime.format(new Date(run.startedAt))}
            >
              <td className="py-2 pr-4 tabular-nums">{run.partition}</td>
              <td className="py-2 pr-4 tabular-nums">
                {/* An abandoned pass (its worker died mid-pass) has no duration and is not running. */}
                {run.durationMs !== null
                  ? formatDurationMs(run.durationMs)
                  : run.status === "running"
                    ? "Running"
                    : "—"}
              </td>
              <td
                className="py-2 pr-4 tabular-nums"
                title={`The partition shrank by this much (${run.bytesRead} B read, ${run.bytesWritten} B written)`}
              >
                {run.reclaimedBytes === null ? "—" : formatBytes(run.reclaimedBytes)}
                {run.bytesBefore === null || run.bytesAfter === null ? null : (
                  // The closed segments' bytes, as the segment bars above draw them (the active
                  // segment, which no pass touches, is left out of both).
                  <span className="block text-xs text-muted">
                    closed segments {formatBytes(run.bytesBefore)} → {formatBytes(run.bytesAfter)}
                  </span>
                )}
              </td>
              <td className="py-2 pr-4 tabular-nums">{run.recordsRemoved}</td>
              <td className="py-2 pr-4 tabular-nums">{run.tombstonesRemoved}</td>
              <td className="py-2">
                {run.error ? (
                  <Disclosure
                    summary={
                      <Badge tone="warning">{run.status === "abandoned" ? "Abandoned" : "Failed"}</Badge>
                    }
                  >
                    {run.error}
                  </Disclosure>
                ) : (
                  <Badge>{run.status}</Badge>
                )}
              </td>
            </DataRow>
          ))}
        </DataTable>
      ) : null}
    </Card>
  );
}
