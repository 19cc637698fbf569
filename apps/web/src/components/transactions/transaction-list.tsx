"use client";

import type { RouterOutputs } from "@lastword/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useConsoleAccess } from "@/lib/console-access";
import { mediumDateTime } from "@/lib/date-time-formats";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { RowAction } from "../ui/row-action";

type Transaction = RouterOutputs["transactions"]["list"]["transactions"][number];

/** The coordinators tick every few seconds: an operator's abort lands within a refresh or two. */
const REFRESH_MS = 3_000;
const COLUMNS = [
  "Transactional id",
  "State",
  "Timeout",
  "Last update",
  "Producer",
  "Partitions",
  "Started",
  "Actions",
];

/** States in which a transaction holds its partitions' last stable offset. */
const OPEN_STATES: ReadonlySet<Transaction["state"]> = new Set(["Ongoing", "PrepareCommit", "PrepareAbort"]);

/**
 * Every transactional id of the tenant as its coordinator keeps it, open ones first, refreshed
 * every few seconds. An open (Ongoing) transaction can be aborted by a member who may write
 * records, as the API requires: the abort is recorded, shown as pending until the coordinator
 * carries it out, and then the row reads CompleteAbort.
 */
export function TransactionList() {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const canRead = access.can("records:read");
  const list = useQuery({
    ...trpc.transactions.list.queryOptions(),
    enabled: access.ready && canRead,
    refetchInterval: REFRESH_MS,
  });

  if (access.ready && !canRead) {
    return (
      <StatusNotice>
        Your role ({access.role ?? "unknown"}) cannot read records, so the transactions writing them are not
        shown.
      </StatusNotice>
    );
  }
  if (list.isPending) return <StatusNotice>Loading transactions…</StatusNotice>;
  if (list.isError) return <ErrorNotice>We could not load transactions: {list.error.message}</ErrorNotice>;
  const transactions = list.data.transactions;
  if (transactions.length === 0) {
    return (
      <StatusNotice>
        No transactional producer has connected yet. A Kafka producer with a transactional.id appears here
        after its first InitProducerId.
      </StatusNotice>
    );
  }
  const open = transactions.filter((t) => OPEN_STATES.has(t.state)).length;
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted">
        {transactions.length.toLocaleString("en")} transactional {transactions.length === 1 ? "id" : "ids"},{" "}
        {open.toLocaleString("en")} with an open transaction.
      </p>
      <DataTable label="Transactions" titles={COLUMNS} srOnly={["Actions"]} framed>
        {transactions.map((t) => (
          <TransactionRow key={t.transactionalId} transaction={t} canAbort={access.can("records:write")} />
        ))}
      </DataTable>
    </div>
  );
}

function TransactionRow({ transaction: t, canAbort }: { transaction: Transaction; canAbort: boolean }) {
  const trpc = useTRPC();
  const pending = t.abortRequestedAt !== null && t.state === "Ongoing";
  return (
    <tr className="border-b border-line align-top last:border-0">
      <th scope="row" className="px-4 py-3 font-mono text-xs font-medium break-all">
        {t.transactionalId}
      </th>
      <td className="px-4 py-3">
        <StateBadge state={t.state} />
      </td>
      <td className="px-4 py-3 tabular-nums whitespace-nowrap">{formatTimeout(t.timeoutMs)}</td>
      <td className="px-4 py-3 whitespace-nowrap text-muted">
        {mediumDateTime.format(new Date(t.updatedAt))}
      </td>
      <td className="px-4 py-3 font-mono text-xs whitespace-nowrap">
        {t.producerId < 0 ? "none yet" : `${t.producerId} · epoch ${t.producerEpoch}`}
      </td>
      <td className="px-4 py-3">
        {t.partitions.length === 0 ? (
          <span className="text-muted">None</span>
        ) : (
          <ul
            aria-label={`Partitions of ${t.transactionalId}`}
            className="flex flex-col gap-0.5 font-mono text-xs"
          >
            {t.partitions.map((p) => (
              <li key={`${p.topic}:${p.partition}`} className="break-all">
                {/* To the partition's last stable offset and what holds it, on the Segments tab. */}
                <Link
                  href={`/topics/${encodeURIComponent(p.topic)}?tab=segments`}
                  className="text-accent underline-offset-2 hover:underline"
                >
                  {p.topic}-{p.partition}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className="px-4 py-3 whitespace-nowrap text-muted">
        {t.startedAt ? mediumDateTime.format(new Date(t.startedAt)) : "—"}
      </td>
      <td className="px-4 py-3 text-right">
        {pending ? (
          <Badge tone="warning">Abort pending</Badge>
        ) : t.state === "Ongoing" && canAbort ? (
          <RowAction
            verb="Abort"
            gerund="Aborting"
            target={t.transactionalId}
            mutation={trpc.transactions.abort.mutationOptions()}
            variables={{ transactionalId: t.transactionalId }}
            refresh={[trpc.transactions.list.queryKey()]}
          />
        ) : null}
      </td>
    </tr>
  );
}

/** Kafka's state names, open ones marked: they hold back read_committed consumers. */
function StateBadge({ state }: { state: Transaction["state"] }) {
  if (state === "Ongoing") return <Badge tone="warning">{state}</Badge>;
  if (OPEN_STATES.has(state)) return <Badge tone="accent">{state}</Badge>;
  return <Badge>{state}</Badge>;
}

function formatTimeout(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
