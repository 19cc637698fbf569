"use client";

import { slugFor } from "@lastword/api/tenant-slug";
import { type FormEvent, useState } from "react";
import { useAuthAction } from "@/lib/auth-action";
import { authClient } from "@/lib/auth-client";
import { TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

/** A new organization (tenant) owned by the signed-in user; better-auth makes it the active one. */
export function CreateOrganizationForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const create = useAuthAction();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void create.run(true, () => authClient.organization.create({ name: name.trim(), slug: slugFor(name) }), {
      fallback: "We could not create the organization. Please try again.",
      onSuccess: () => {
        setName("");
        onCreated();
      },
    });
  };
  return (
    <form aria-label="Create an organization" onSubmit={submit} className="flex flex-col gap-2">
      <TextField
        label="New organization name"
        required
        maxLength={100}
        value={name}
        onChange={(event) => setName(event.target.value)}
        hint="You become its owner; it starts with no topics, keys or other members."
      />
      {create.error ? <ErrorNotice>{create.error}</ErrorNotice> : null}
      <div>
        <SubmitButton
          label="Create organization"
          pendingLabel="Creating…"
          pending={create.busy}
          disabled={name.trim() === ""}
        />
      </div>
    </form>
  );
}
