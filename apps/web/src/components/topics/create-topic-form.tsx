"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { CLEANUP_POLICIES, type CleanupPolicy, explainPolicy } from "@/lib/cleanup-policy";
import { TOPIC_PRESET_CHOICES, type TopicPreset } from "@/lib/topic-presets";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";
import { CreateTopicOutcome } from "./create-topic-outcome";

const TOPIC_NAME_PATTERN = "[a-zA-Z0-9._\\-]+";
const CUSTOM = "custom";

export function CreateTopicForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [partitions, setPartitions] = useState("1");
  const [preset, setPreset] = useState<TopicPreset | typeof CUSTOM>(CUSTOM);
  const [policy, setPolicy] = useState<CleanupPolicy>("compact");
  const create = useMutation(
    trpc.topics.create.mutationOptions({
      onSuccess: async (result) => {
        if (result.validateOnly) return;
        setName("");
        await queryClient.invalidateQueries({ queryKey: trpc.topics.list.queryKey() });
      },
    }),
  );

  const send = (validateOnly: boolean) => {
    // A preset brings its own cleanup.policy; an explicit one would override it.
    const choice = preset === CUSTOM ? { configs: { "cleanup.policy": policy } } : { preset };
    create.mutate({ name, partitions: Number(partitions), ...choice, validateOnly });
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send(false);
  };
  const check = (event: { currentTarget: HTMLButtonElement }) => {
    if (event.currentTarget.form?.reportValidity()) send(true);
  };
  const presetHint =
    preset === CUSTOM
      ? "Choose the cleanup policy yourself."
      : TOPIC_PRESET_CHOICES.find((choice) => choice.value === preset)?.explanation;

  return (
    <Card
      title="Create a topic"
      description="You can change configs later; compacted topics keep their partition count."
    >
      <form aria-label="Create a topic" onSubmit={submit} className="grid gap-4 sm:grid-cols-2">
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
          max={256}
          value={partitions}
          onChange={(event) => setPartitions(event.target.value)}
          hint="Records with the same key always land in the same partition."
        />
        <SelectField
          label="Preset"
          value={preset}
          onChange={(event) => setPreset(event.target.value as TopicPreset | typeof CUSTOM)}
          hint={presetHint}
        >
          <option value={CUSTOM}>Custom</option>
          {TOPIC_PRESET_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Cleanup policy"
          value={policy}
          disabled={preset !== CUSTOM}
          onChange={(event) => setPolicy(event.target.value as CleanupPolicy)}
          hint={preset === CUSTOM ? explainPolicy(policy) : "Set by the preset."}
        >
          {CLEANUP_POLICIES.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </SelectField>
        <div className="flex flex-col gap-3 sm:col-span-2">
          {create.isError ? <ErrorNotice>{create.error.message}</ErrorNotice> : null}
          {create.data ? <CreateTopicOutcome outcome={create.data} /> : null}
          <div className="flex gap-2">
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Working…" : "Create topic"}
            </Button>
            <Button variant="secondary" disabled={create.isPending} onClick={check}>
              Check without creating
            </Button>
          </div>
        </div>
      </form>
    </Card>
  );
}
