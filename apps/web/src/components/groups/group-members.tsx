import type { AppRouter } from "@lastword/api";
import type { inferRouterOutputs } from "@trpc/server";
import { Badge } from "../ui/badge";
import { DataTable } from "../ui/data-table";

type ListedGroup = inferRouterOutputs<AppRouter>["consumerGroups"]["list"]["groups"][number];
type Membership = NonNullable<ListedGroup["membership"]>;
type Member = Membership["members"][number];

const STATE_LABELS: Record<Membership["state"], string> = {
  Empty: "Empty (no members)",
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
      {m.members.length > 0 ? (
        <DataTable
          label={`Members of ${group.group}`}
          titles={["Member", "group.instance.id", "Client id", "Client host", "Assigned partitions"]}
          size="xs"
        >
          {m.members.map((member) => (
            <tr key={member.memberId} className="border-b border-line align-top last:border-0">
              <th scope="row" className="min-w-48 py-2 pr-4 font-mono font-normal break-all">
                {member.memberId}
                {member.memberId === m.leaderId ? (
                  <span className="ml-2">
                    <Badge>Leader</Badge>
                  </span>
                ) : null}
              </th>
              <td className="py-2 pr-4 font-mono">{member.groupInstanceId ?? "—"}</td>
              <td className="py-2 pr-4 font-mono whitespace-nowrap">{member.clientId}</td>
              <td className="py-2 pr-4 font-mono whitespace-nowrap">{member.clientHost}</td>
              <td className="py-2">
                <AssignedPartitions state={m.state} member={member} />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </div>
  );
}
