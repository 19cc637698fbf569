"use client";

import { slugFor } from "@lastword/api/tenant-slug";
import { type FormEvent, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Button } from "../ui/button";
import { TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";

/** A new organization (tenant) owned by the signed-in user; better-auth makes it the active one. */
export function CreateOrganizationForm({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const result = await authClient.organization.create({ name: name.trim(), slug: slugFor(name) });
    setPending(false);
    if (result.error) {
      setError(result.error.message ?? "We could not create the organization. Please try again.");
      return;
    }
    setName("");
    onCreated();
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
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
      <div>
        <Button type="submit" disabled={pending || name.trim() === ""}>
          {pending ? "Creating…" : "Create organization"}
        </Button>
      </div>
    </form>
  );
}
