"use client";

import { isDeadlineOpen } from "@lastword/erasure";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { countdown, formatTime } from "../compliance/erasure-stages";
import { StatusBadge } from "../compliance/status-badge";
import { SubjectKeys } from "../compliance/subject-keys";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

/** How many open requests the overview lists, soonest deadline first. */
const SHOWN = 5;

/** The open erasure requests whose deadlines come soonest (overdue ones first). */
export function ErasureDeadlines() {
  const access = useConsoleAccess();
  return (
    <Card title="Erasure deadlines" description="Open erasure requests, soonest deadline first.">
      {!access.ready ? (
        <StatusNotice>Loading…</StatusNotice>
      ) : access.can("erasure:read") ? (
        <OpenRequests />
      ) : (
        <StatusNotice>Erasure requests are shown to owners, admins and the compliance role.</StatusNotice>
      )}
    </Card>
  );
}

function OpenRequests() {
  const trpc = useTRPC();
  // The list comes soonest deadline first; closed ones are dropped here.
  const list = useQuery(trpc.erasure.list.queryOptions({ limit: 100 }));
  if (list.isError) return <ErrorNotice>We could not load the requests: {list.error.message}</ErrorNotice>;
  if (!list.data) return <StatusNotice>Loading the requests…</StatusNotice>;
  const open = list.data.requests.filter((r) => isDeadlineOpen(r.status)).slice(0, SHOWN);
  if (open.length === 0) return <StatusNotice>No erasure request is open.</StatusNotice>;
  const nowMs = list.dataUpdatedAt;
  return (
    <DataTable label="Open erasure requests" titles={["Subject keys", "Status", "Deadline"]}>
      {open.map((r) => (
        <DataRow
          key={r.id}
          headClassName="font-normal"
          head={
            <Link href={`/compliance/requests/${r.id}`} className="text-accent hover:underline">
              <SubjectKeys keys={r.subjectKeys} />
            </Link>
          }
        >
          <td className="py-2 pr-4">
            <StatusBadge status={r.status} />
          </td>
          <td className="py-2 whitespace-nowrap">
            {formatTime(r.deadlineAt, "short")}
            <span className="ml-2 text-xs text-muted">{countdown(Date.parse(r.deadlineAt) - nowMs)}</span>
          </td>
        </DataRow>
      ))}
    </DataTable>
  );
}
