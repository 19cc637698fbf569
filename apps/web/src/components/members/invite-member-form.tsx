"use client";

import { useConsoleAccess } from "@/lib/console-access";
import { emailAddress, filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { ASSIGNABLE_ROLES, type AssignableRole } from "@/lib/member-roles";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { SelectField, TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";
import { InvitationLink } from "./invitation-link";

export function InviteMemberForm() {
  const access = useConsoleAccess();
  if (!access.ready) return null;
  if (!access.can("members:write")) {
    return access.can("members:read") ? (
      <StatusNotice>Owners and admins invite members and change roles.</StatusNotice>
    ) : null;
  }
  return <InviteForm />;
}

function InviteForm() {
  const trpc = useTRPC();
  const email = useInput("");
  const role = useInput<AssignableRole>("developer");
  const checks = useFieldChecks({
    email: [email.value, [filled("Enter the email address of the person to invite."), emailAddress]],
  });
  const invite = useRefreshingMutation(trpc.members.invite.mutationOptions(), {
    refresh: [trpc.members.list.queryKey()],
    reset: () => {
      email.set("");
      checks.reset();
    },
  });
  const submit = checks.guard(() => invite.mutate({ email: email.value, role: role.value }));
  return (
    <FormCard
      title="Invite a member"
      description="Lastword sends no invitation email: pass the link on. It is shown once, here, and valid for 7 days. An address has one pending invitation at a time: to send a new link, revoke the pending one first."
      onSubmit={submit}
      className="grid gap-4 sm:grid-cols-2"
    >
      <TextField label="Email" type="email" {...checks.field("email", email)} />
      <SelectField label="Role" {...role.bind} options={ASSIGNABLE_ROLES} />
      <div className="flex flex-col gap-3 sm:col-span-2">
        {invite.isError ? <ErrorNotice>{invite.error.message}</ErrorNotice> : null}
        {invite.data ? (
          <>
            <p role="status" className="text-sm text-muted">
              Invited {invite.data.email} as {invite.data.role}. Copy their link now (it is not shown again)
              and send it to them; they sign in or sign up with that email and accept.
            </p>
            <InvitationLink link={invite.data.link} email={invite.data.email} />
          </>
        ) : null}
        <div>
          <SubmitButton label="Send invitation" pendingLabel="Inviting…" pending={invite.isPending} />
        </div>
      </div>
    </FormCard>
  );
}
