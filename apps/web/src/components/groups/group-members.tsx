"use client";

import { type ColumnDef, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useMemo } from "react";
import { Badge } from "../ui/badge";
import { VirtualTable } from "../ui/virtual-table";
import type { ListedGroup } from "./listed-group";

type Membership = NonNullable<ListedGroup["membership"]>;
type Member = Membership["members"][number];

export const STATE_LABELS: Record<Membership["state"], string> = {
  Empty: "Empty",
  PreparingRebalance: "Preparing rebalance",
  CompletingRebalance: "Completing rebalance",
  Stable: "Stable",
  Dead: "Dead",
};

/** One line a topic: "orders: 0, 2, 5". */
function AssignedPartitions({ state, member }: { state: Membership["state"]; member: Member }) {
  if (member.assignment === null) {
    return (
      <span className="text-muted">
        {state === "Stable" ? "Not a consumer-protocol assignment" : "Assigned when the rebalance completes"}
      </span>
    );
  }
  if (member.assignment.length === 0) return <span className="text-muted">No partitions</span>;
  return (
    <ul aria-label={`Partitions of ${member.memberId}`} className="flex flex-col gap-0.5">
      {member.assignment.map((t) => (
        <li key={t.topic}>
          <span className="font-mono">{t.topic}</span>:{" "}
          <span className="tabular-nums">{t.partitions.join(", ")}</span>
        </li>
      ))}
    </ul>
  );
}

/** A group's members (TanStack Table, only the rows in view drawn: a group may have thousands). */
function MemberTable({ group, membership }: { group: string; membership: Membership }) {
  const columns = useMemo<ColumnDef<Member>[]>(
    () => [
      {
        id: "member",
        header: "Member",
        cell: (c) => (
          <>
            {c.row.original.memberId}
            {c.row.original.memberId === membership.leaderId ? (
              <span className="ml-2">
                <Badge>Leader</Badge>
              </span>
            ) : null}
          </>
        ),
      },
      { id: "instance", header: "group.instance.id", cell: (c) => c.row.original.groupInstanceId ?? "—" },
      { id: "client", header: "Client id", cell: (c) => c.row.original.clientId },
      { id: "host", header: "Client host", cell: (c) => c.row.original.clientHost },
      {
        id: "partitions",
        header: "Assigned partitions",
        cell: (c) => <AssignedPartitions state={membership.state} member={c.row.original} />,
      },
    ],
    [membership],
  );
  const table = useReactTable({
    data: membership.members,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (m) => m.memberId,
  });
  return (
    <VirtualTable
      table={table}
      label={`Members of ${group}`}
      rowHeader="member"
      stacked
      frameClassName="max-h-96 text-xs"
      cellClassName={(column) =>
        column === "member"
          ? "min-w-48 font-mono font-normal break-all"
          : column === "partitions"
            ? ""
            : "font-mono whitespace-nowrap"
      }
    />
  );
}

/**
 * A group's membership as its coordinator holds it: state, protocol, generation, and per member
 * its ids, client and assigned partitions. REST groups have no members (clients commit over HTTP).
 */
export function GroupMembers({ group }: { group: ListedGroup }) {
  if (group.protocol === "rest") {
    return <p className="text-sm text-muted">No members: REST clients commit offsets over HTTP.</p>;
  }
  if (group.membership === null) {
    return <p className="text-sm text-muted">Membership unknown. {group.membershipUnavailable}</p>;
  }
  const m = group.membership;
  const facts: [string, string][] = [
    ["State", STATE_LABELS[m.state]],
    [
      "Group protocol",
      m.protocolType ? `${m.protocolType}${m.protocolName ? ` / ${m.protocolName}` : ""}` : "None yet",
    ],
    ["Generation", String(m.generationId)],
    ["Members", String(m.members.length)],
  ];
  return (
    <div className="flex flex-col gap-3">
      <dl aria-label={`Membership of ${group.group}`} className="grid gap-3 text-sm sm:grid-cols-4">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt className="text-muted">{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {m.members.length > 0 ? <MemberTable group={group.group} membership={m} /> : null}
    </div>
  );
}
