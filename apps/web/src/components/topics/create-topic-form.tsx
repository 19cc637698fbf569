"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { CLEANUP_POLICIES, type CleanupPolicy, explainPolicy } from "@/lib/cleanup-policy";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";

const TOPIC_NAME_PATTERN = "[a-zA-Z0-9._\\-]+";

export function CreateTopicForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [partitions, setPartitions] = useState("1");
  const [policy, setPolicy] = useState<CleanupPolicy>("compact");
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation(
    trpc.topics.create.mutationOptions({
      onSuccess: async ({ topic }) => {
        setCreated(topic.name);
        setName("");
        await queryClient.invalidateQueries({ queryKey: trpc.topics.list.queryKey() });
      },
    }),
  );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(null);
    create.mutate({ name, partitions: Number(partitions), configs: { "cleanup.policy": policy } });
  };

  return (
    <Card
      title="Create a topic"
      description="You can change configs later; compacted topics keep their partition count."
    >
      <form aria-label="Create a topic" onSubmit={submit} className="grid gap-4 sm:grid-cols-3">
        <TextField
          label="Topic name"
          required
          maxLength={249}
          pattern={TOPIC_NAME_PATTERN}
          value={name}
          onChange={(event) => setName(event.target.value)}
          hint="Letters, digits, dots, underscores and dashes."
        />
        <TextField
          label="Partitions"
          type="number"
          required
          min={1}
          max={64}
          value={partitions}
          onChange={(event) => setPartitions(event.target.value)}
          hint="Records with the same key always land in the same partition."
        />
        <SelectField
          label="Cleanup policy"
          value={policy}
          onChange={(event) => setPolicy(event.target.value as CleanupPolicy)}
          hint={explainPolicy(policy)}
        >
          {CLEANUP_POLICIES.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </SelectField>
        <div className="flex flex-col gap-3 sm:col-span-3">
          {create.isError ? <ErrorNotice>{create.error.message}</ErrorNotice> : null}
          {created ? (
            <p role="status" className="text-sm text-muted">
              Created topic {created}.
            </p>
          ) : null}
          <div>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating topic…" : "Create topic"}
            </Button>
          </div>
        </div>
      </form>
    </Card>
  );
}
