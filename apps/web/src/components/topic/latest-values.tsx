"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { shortDateTime } from "@/lib/date-time-formats";
import { fetchSnapshotPage } from "@/lib/snapshot-page";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { EnvelopeView } from "./envelope-view";

const PAGE_SIZE = 50;
/** Page n reads n × 50 lines of the snapshot; past this the snapshot API is the tool. */
const MAX_PAGES = 20;

/**
 * The topic as a table: the latest live value of each key (the snapshot route, which reads the
 * workers' key indexes, not the dirty log), 50 keys a page, read only when asked for.
 */
export function LatestValues({ topic }: { topic: string }) {
  const [page, setPage] = useState<number | null>(null);
  return (
    <Card
      title="Latest value per key"
      description="What a consumer replaying the topic from the start ends up with: one row per live key, deleted keys left out."
    >
      {page === null ? (
        <div className="flex flex-col items-start gap-3">
          <p className="text-sm text-muted">
            The table reads the topic's snapshot, {PAGE_SIZE} keys a page, partition after partition.
          </p>
          <Button variant="secondary" onClick={() => setPage(0)}>
            Show latest values
          </Button>
        </div>
      ) : (
        <SnapshotTable topic={topic} page={page} onPage={setPage} />
      )}
    </Card>
  );
}

function SnapshotTable(props: { topic: string; page: number; onPage: (page: number) => void }) {
  const { page } = props;
  const snapshot = useQuery({
    queryKey: ["topic-snapshot", props.topic, page],
    queryFn: ({ signal }) => fetchSnapshotPage(props.topic, page * PAGE_SIZE, PAGE_SIZE, signal),
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
  if (snapshot.isPending) return <StatusNotice>Reading the latest values…</StatusNotice>;
  if (snapshot.isError) {
    return <ErrorNotice>We could not read the latest values: {snapshot.error.message}</ErrorNotice>;
  }
  const { rows, hasMore } = snapshot.data;
  if (rows.length === 0 && page === 0) {
    return <StatusNotice>This topic holds no live key: it is empty, or every key was deleted.</StatusNotice>;
  }
  const first = page * PAGE_SIZE + 1;
  const atLimit = page + 1 >= MAX_PAGES;
  return (
    <div className="flex flex-col gap-3">
      <p role="status" className="text-sm text-muted">
        Keys {first}–{first + rows.length - 1}
        {hasMore ? "; more follow." : ", the last of them."}
      </p>
      <DataTable label="Latest value per key" titles={["Key", "Value", "Partition", "Offset", "Timestamp"]}>
        {rows.map((row) => (
          <DataRow
            key={`${row.partition}-${row.offset}`}
            top
            headClassName="font-normal"
            head={<EnvelopeView envelope={row.key} part="key" />}
          >
            <td className="py-2 pr-4">
              <EnvelopeView envelope={row.value} part="value" />
            </td>
            <td className="py-2 pr-4 tabular-nums">{row.partition}</td>
            <td className="py-2 pr-4 font-mono tabular-nums">{row.offset}</td>
            <td className="py-2 text-xs whitespace-nowrap text-muted">
              {shortDateTime.format(new Date(row.timestamp))}
            </td>
          </DataRow>
        ))}
      </DataTable>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" disabled={page === 0} onClick={() => props.onPage(page - 1)}>
          Previous keys
        </Button>
        <Button variant="secondary" disabled={!hasMore || atLimit} onClick={() => props.onPage(page + 1)}>
          Next keys
        </Button>
        {hasMore && atLimit ? (
          <p className="text-sm text-muted">
            The console shows the first {MAX_PAGES * PAGE_SIZE} keys; GET /api/v1/topics/{props.topic}
            /snapshot streams all of them.
          </p>
        ) : null}
      </div>
    </div>
  );
}
