"use client";

import { slugFor } from "@lastword/api/tenant-slug";
import { useAuthAction } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { TextField } from "../ui/field";
import { Form } from "../ui/form";
import { FormFooter } from "../ui/form-footer";

/** A new organization (tenant) owned by the signed-in user; better-auth makes it the active one. */
export function CreateOrganizationForm({ onCreated }: { onCreated: () => void }) {
  const name = useInput("");
  const create = useAuthAction();
  const checks = useFieldChecks({ name: [name.value, [filled("Name the new organization.")]] });
  const submit = checks.guard(() => {
    const trimmed = name.value.trim();
    void create.run(
      true,
      () => authClient.organization.create({ name: trimmed, slug: slugFor(name.value) }),
      {
        fallback: "We could not create the organization. Please try again.",
        onSuccess: () => {
          name.set("");
          checks.reset();
          onCreated();
        },
      },
    );
  });
  return (
    <Form aria-label="Create an organization" onSubmit={submit} className="flex flex-col gap-2">
      <TextField
        label="New organization name"
        maxLength={100}
        {...checks.field("name", name)}
        hint="You become its owner; it starts with no topics, keys or other members."
      />
      <FormFooter
        error={create.error}
        label="Create organization"
        pendingLabel="Creating…"
        pending={create.busy}
      />
    </Form>
  );
}
