"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useConsoleAccess } from "@/lib/console-access";
import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

/** The organization's name, which owners and admins may change (the audit trail records both names). */
export function RenameOrganizationForm() {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const current = useQuery(trpc.tenant.current.queryOptions());
  if (!access.ready || !current.data) return null;
  if (!access.can("admin")) return <StatusNotice>Owners and admins rename the organization.</StatusNotice>;
  return <RenameForm currentName={current.data.name} />;
}

function RenameForm({ currentName }: { currentName: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const name = useInput(currentName);
  const checks = useFieldChecks({ name: [name.value, [filled("Enter the organization's name.")]] });
  const rename = useRefreshingMutation(trpc.tenant.rename.mutationOptions(), {
    refresh: [trpc.tenant.current.queryKey()],
    // The header's organization switcher is drawn by the server: redraw it with the new name.
    reset: () => router.refresh(),
  });
  const submit = checks.guard(() => rename.mutate({ name: name.value }));
  return (
    <FormCard
      title="Organization"
      description="Its name, as the header and invitations show it. The audit trail records each rename."
      onSubmit={submit}
      className="flex flex-col gap-3 sm:flex-row sm:items-end"
    >
      <div className="sm:w-96">
        <TextField label="Organization name" maxLength={100} {...checks.field("name", name)} />
      </div>
      <SubmitButton label="Rename" pendingLabel="Renaming…" pending={rename.isPending} />
      {rename.isError ? <ErrorNotice>{rename.error.message}</ErrorNotice> : null}
      {rename.data && !rename.isPending ? (
        <p role="status" className="text-sm text-muted">
          {rename.data.changed
            ? `Renamed to ${rename.data.name}.`
            : `It is already called ${rename.data.name}.`}
        </p>
      ) : null}
    </FormCard>
  );
}
