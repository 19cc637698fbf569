"use client";

import { useQuery } from "@tanstack/react-query";
import { durabilityModeWords, recoveryPointWords, uploadLagWords } from "@/lib/durability-wording";
import { humanDuration } from "@/lib/human-duration";
import { formatBytes } from "@/lib/partition-stats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

/** Commits land every window and log ends every scheduler tick; the card follows at the stats' pace. */
const DURABILITY_REFRESH_MS = 5_000;
const TITLES = [
  "Partition",
  "Log end",
  "In object storage up to",
  "Not yet uploaded",
  "Objects",
  "Last upload",
];

const offsetBefore = (end: number | null) =>
  end === null ? "—" : end === 0 ? "nothing yet" : String(end - 1);

/** How a topic's produces are acknowledged and what object storage holds of each partition. */
export function DurabilityCard({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const durability = useQuery({
    ...trpc.topics.durability.queryOptions({ topic }),
    refetchInterval: DURABILITY_REFRESH_MS,
  });
  const d = durability.data;
  const now = durability.dataUpdatedAt;
  return (
    <Card
      title="Durability"
      description="When a produce is acknowledged, and how much of each partition a lost machine could be rebuilt from."
    >
      {durability.isPending ? <StatusNotice>Loading durability…</StatusNotice> : null}
      {durability.isError && d === undefined ? (
        <ErrorNotice>We could not load the topic's durability: {durability.error.message}</ErrorNotice>
      ) : null}
      {d ? (
        <div className="flex flex-col gap-4">
          <dl className="grid gap-2 text-sm sm:grid-cols-[max-content_1fr] sm:gap-x-6">
            <dt className="text-muted">Mode</dt>
            <dd className="font-medium">{durabilityModeWords(d)}</dd>
            <dt className="text-muted">Recovery point</dt>
            <dd>{recoveryPointWords(d, now)}</dd>
            {uploadLagWords(d, now) === null ? null : (
              <>
                <dt className="text-muted">Upload lag</dt>
                <dd>{uploadLagWords(d, now)}</dd>
              </>
            )}
          </dl>
          <DataTable label="Partition durability" titles={TITLES}>
            {d.partitions.map((p) => (
              <DataRow key={p.partition} headClassName="font-mono font-normal" head={p.partition}>
                <td className="py-2 pr-4 font-mono">{p.logEndOffset ?? "not reported"}</td>
                <td className="py-2 pr-4 font-mono">{offsetBefore(p.durableEndOffset)}</td>
                <td className="py-2 pr-4 font-mono">{p.pendingOffsets ?? "—"}</td>
                <td className="py-2 pr-4 whitespace-nowrap">
                  {p.objects} ({formatBytes(p.objectBytes)})
                </td>
                <td className="py-2 pr-4 whitespace-nowrap">
                  {p.lastObjectAt === null
                    ? "never"
                    : `${humanDuration(now - Date.parse(p.lastObjectAt))} ago`}
                </td>
              </DataRow>
            ))}
          </DataTable>
        </div>
      ) : null}
    </Card>
  );
}
