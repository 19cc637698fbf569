"use client";

import { type FormEvent, useState } from "react";
import { authClient } from "@/lib/auth-client";
import { Button } from "../ui/button";
import { TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";

const SLUG_SUFFIX_BYTES = 3;

// Slugs are unique across all tenants; a random suffix keeps two "Acme"s from colliding.
function slugFor(name: string): string {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(SLUG_SUFFIX_BYTES)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  return `${base || "tenant"}-${suffix}`;
}

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
