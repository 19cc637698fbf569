"use client";

import { ERASURE_STATUSES, isDeadlineOpen, needsAttention } from "@lastword/erasure";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, RefreshFailedNotice, StatusNotice } from "../ui/notice";
import { countdown, type ErasureSummary, formatTime } from "./erasure-stages";
import { StatusBadge, statusLabel } from "./status-badge";
import { SubjectKeys } from "./subject-keys";

/** Workers advance requests every scheduler tick (5 s by default); refresh a little faster. */
const LIST_REFRESH_MS = 3_000;

/** Requests by status, the ones at risk, and every request with its deadline countdown. */
export function ComplianceDashboard() {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.erasure.list.queryOptions({ limit: 200 }),
    refetchInterval: LIST_REFRESH_MS,
  });
  if (list.isPending) return <StatusNotice>Loading erasure requests…</StatusNotice>;
  if (list.isError && list.data === undefined)
    return <ErrorNotice>We could not load erasure requests: {list.error.message}</ErrorNotice>;
  const { requests, byStatus } = list.data;
  const atRisk = requests.filter((r) => needsAttention(r.status));
  const nowMs = Date.now();
  return (
    <div className="flex flex-col gap-6">
      {list.isError ? <RefreshFailedNotice error={list.error} /> : null}
      <section aria-labelledby="by-status" className="flex flex-col gap-2">
        <h2 id="by-status" className="text-base font-semibold">
          Requests by status
        </h2>
        <ul aria-label="Requests by status" className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7">
          {ERASURE_STATUSES.map((status) => (
            <li key={status} className="rounded-lg border border-line bg-surface px-3 py-2">
              <p className="text-xs text-muted">{statusLabel(status)}</p>
              <p className="text-xl font-semibold tabular-nums">{byStatus[status] ?? 0}</p>
            </li>
          ))}
        </ul>
      </section>
      <Card
        title="At risk"
        description="Requests not yet verified purged in the last tenth of their window, and those whose deadline passed."
      >
        {atRisk.length === 0 ? (
          <StatusNotice>No request is at risk: every open request is on track for its deadline.</StatusNotice>
        ) : (
          <ul aria-label="Requests at risk" className="flex flex-col gap-2 text-sm">
            {atRisk.map((r) => (
              <li key={r.id} className="flex flex-wrap items-center gap-2">
                <StatusBadge status={r.status} />
                <Link href={`/compliance/requests/${r.id}`} className="text-accent hover:underline">
                  <SubjectKeys keys={r.subjectKeys} />
                </Link>
                <span className="text-muted">{r.statusReason}</span>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card
        title="Erasure requests"
        description="Soonest deadline first. Open a request for its timeline and evidence."
      >
        {requests.length === 0 ? (
          <StatusNotice>No erasure request has been filed yet. File one below.</StatusNotice>
        ) : (
          <RequestTable requests={requests} nowMs={nowMs} />
        )}
      </Card>
    </div>
  );
}

function RequestTable({ requests, nowMs }: { requests: ErasureSummary[]; nowMs: number }) {
  return (
    <DataTable label="Erasure requests" titles={["Subject keys", "Scope", "Status", "Received", "Deadline"]}>
      {requests.map((r) => (
        <DataRow
          key={r.id}
          headClassName="font-normal"
          head={
            <Link
              href={`/compliance/requests/${r.id}`}
              className="text-accent hover:underline"
              aria-label={`Request for ${r.subjectKeys.map((k) => String(k.data)).join(", ")}`}
            >
              <SubjectKeys keys={r.subjectKeys} />
            </Link>
          }
        >
          <td className="py-2 pr-4">
            {r.scope.allCompacted ? "All compacted topics" : r.scope.topics.join(", ")}
          </td>
          <td className="py-2 pr-4">
            <StatusBadge status={r.status} />
          </td>
          <td className="py-2 pr-4 whitespace-nowrap">{formatTime(r.receivedAt, "short")}</td>
          <td className="py-2 whitespace-nowrap">
            {formatTime(r.deadlineAt, "short")}
            {isDeadlineOpen(r.status) ? (
              <span className="ml-2 text-xs text-muted">{countdown(Date.parse(r.deadlineAt) - nowMs)}</span>
            ) : null}
          </td>
        </DataRow>
      ))}
    </DataTable>
  );
}
