"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { TopicPreflight } from "./topic-preflight";

const TOPICS_REFRESH_MS = 10_000;

/** Every compacted topic against the tenant's default deadline; the ones that miss it first. */
export function TopicReadiness() {
  const trpc = useTRPC();
  const report = useQuery({ ...trpc.erasure.topics.queryOptions({}), refetchInterval: TOPICS_REFRESH_MS });
  const description = report.data
    ? `Worst-case purge time from each compacted topic's configs against the ${report.data.deadlineDays}-day deadline.`
    : "Worst-case purge time from each compacted topic's configs against the tenant's deadline.";
  return (
    <Card title="Topics and the deadline" description={description}>
      {report.isPending ? <StatusNotice>Checking each compacted topic's configs…</StatusNotice> : null}
      {report.isError ? (
        <ErrorNotice>We could not check the topics: {report.error.message}</ErrorNotice>
      ) : null}
      {report.data && report.data.topics.length === 0 ? (
        <StatusNotice>
          This organization has no compacted topics, so there is nothing to erase from.
        </StatusNotice>
      ) : null}
      {report.data && report.data.topics.length > 0 ? (
        <div className="flex flex-col gap-3">
          <TopicPreflight
            entries={[...report.data.topics].sort(
              (a, b) => Number(a.preflight.meetsDeadline) - Number(b.preflight.meetsDeadline),
            )}
          />
          {report.data.topics.some((t) => t.laggingGroups.length > 0) ? (
            <ul aria-label="Consumer groups behind tombstones" className="flex flex-col gap-1 text-sm">
              {report.data.topics.flatMap((t) =>
                t.laggingGroups.map((g) => (
                  <li key={`${g.group}-${g.topic}-${g.partition}-${g.tombstoneOffset}`}>
                    <span className="font-mono">{g.group}</span> has not read past the erasure tombstone in{" "}
                    {g.topic} / {g.partition}
                    {g.horizonNear ? <strong className="ml-2 text-danger">Horizon near</strong> : null}
                  </li>
                )),
              )}
            </ul>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}
