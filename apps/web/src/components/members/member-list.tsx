"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useConsoleAccess } from "@/lib/console-access";
import { ASSIGNABLE_ROLES, type AssignableRole, isAssignableRole } from "@/lib/member-roles";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { RowAction } from "../ui/row-action";

const dateFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium" });

export function MemberList() {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const canRead = access.can("members:read");
  // Roles without members:write see the list as it is: no role selects, no remove buttons.
  const canManage = access.can("members:write");
  const members = useQuery({ ...trpc.members.list.queryOptions(), enabled: access.ready && canRead });
  if (access.ready && !canRead) {
    return (
      <StatusNotice>
        Your role ({access.role ?? "unknown"}) does not include the member list; an owner or admin can tell
        you who is here.
      </StatusNotice>
    );
  }
  if (members.isPending) return <StatusNotice>Loading members…</StatusNotice>;
  if (members.isError)
    return <ErrorNotice>We could not load the members: {members.error.message}</ErrorNotice>;
  const { invitations } = members.data;
  return (
    <>
      <Card title="People">
        <DataTable
          label="Members"
          titles={["Name", "Email", "Role", "Joined", "Actions"]}
          srOnly={["Actions"]}
        >
          {members.data.members.map((member) => (
            <DataRow key={member.id} head={member.name}>
              <td className="py-2 pr-4">{member.email}</td>
              <td className="py-2 pr-4">
                {canManage && isAssignableRole(member.role) ? (
                  <RoleSelect memberId={member.id} name={member.name} role={member.role} />
                ) : (
                  <Badge>{member.role}</Badge>
                )}
              </td>
              <td className="py-2 pr-4 text-muted">{dateFormat.format(new Date(member.createdAt))}</td>
              <td className="py-2 text-right">
                {canManage && isAssignableRole(member.role) ? (
                  // Two steps, so one stray click cannot lock a colleague out.
                  <RowAction
                    verb="Remove"
                    gerund="Removing"
                    target={member.name}
                    mutation={trpc.members.remove.mutationOptions()}
                    variables={{ memberId: member.id }}
                    refresh={[trpc.members.list.queryKey()]}
                  />
                ) : null}
              </td>
            </DataRow>
          ))}
        </DataTable>
      </Card>
      <Card title="Pending invitations">
        {invitations.length === 0 ? (
          <StatusNotice>No invitations are waiting to be accepted.</StatusNotice>
        ) : (
          <ul aria-label="Pending invitations" className="flex flex-col divide-y divide-line text-sm">
            {invitations.map((invitation) => (
              <li key={invitation.id ?? invitation.email} className="flex flex-col gap-2 py-3">
                <div className="flex flex-wrap items-center gap-3">
                  <span className="font-medium">{invitation.email}</span>
                  <Badge>{invitation.role}</Badge>
                  <span className="text-muted">
                    expires {dateFormat.format(new Date(invitation.expiresAt))}
                  </span>
                  {/* The id is listed only to those who manage invitations (members:write). */}
                  {canManage && invitation.id ? (
                    <span className="ml-auto">
                      <RowAction
                        verb="Revoke"
                        gerund="Revoking"
                        target={`the invitation for ${invitation.email}`}
                        mutation={trpc.members.revokeInvitation.mutationOptions()}
                        variables={{ invitationId: invitation.id }}
                        refresh={[trpc.members.list.queryKey()]}
                      />
                    </span>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}

function RoleSelect({ memberId, name, role }: { memberId: string; name: string; role: AssignableRole }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const change = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() }),
    }),
  );
  return (
    <div className="flex flex-col gap-1">
      <select
        aria-label={`Role of ${name}`}
        value={role}
        disabled={change.isPending}
        onChange={(event) => change.mutate({ memberId, role: event.target.value as AssignableRole })}
        className="rounded-md border border-line bg-surface px-2 py-1 text-sm"
      >
        {ASSIGNABLE_ROLES.map((entry) => (
          <option key={entry} value={entry}>
            {entry}
          </option>
        ))}
      </select>
      {change.isError ? <ErrorNotice>{change.error.message}</ErrorNotice> : null}
    </div>
  );
}
