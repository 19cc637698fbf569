"use client";

import type { TopicConfigName } from "@lastword/api/topic-rules";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { CLEANUP_POLICIES, type CleanupPolicy, explainPolicy } from "@/lib/cleanup-policy";
import { useInput } from "@/lib/form-state";
import {
  baseConfigs,
  configErrors,
  configField,
  editedConfigs,
  type FieldErrors,
  type FieldInput,
  serverFieldErrors,
  sourceOf,
  toInput,
  topicFieldErrors,
} from "@/lib/topic-config-form";
import { TOPIC_PRESET_CHOICES, type TopicPreset } from "@/lib/topic-presets";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { SelectField, TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice } from "../ui/notice";
import { CreateTopicConfigs } from "./create-topic-configs";
import { CreateTopicOutcome } from "./create-topic-outcome";

const TOPIC_NAME_PATTERN = "[a-zA-Z0-9._\\-]+";
const CUSTOM = "custom";

type Edits = Partial<Record<TopicConfigName, FieldInput>>;

export function CreateTopicForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [refused, setRefused] = useState<{ fields: FieldErrors; rest: string | null } | null>(null);
  // A changed field answers the server's refusal: its messages were about what the fields held then.
  const clearRefusal = () => setRefused(null);
  const name = useInput("", clearRefusal);
  const partitions = useInput("1", clearRefusal);
  const preset = useInput<TopicPreset | typeof CUSTOM>(CUSTOM, clearRefusal);
  const [policy, setPolicy] = useState<CleanupPolicy>("compact");
  const [edits, setEdits] = useState<Edits>({});
  const [attempted, setAttempted] = useState(false);
  // The gdpr-table preset's lag limits follow the organization's erasure deadline.
  const usage = useQuery(trpc.tenant.usage.queryOptions());
  const deadlineDays = usage.data?.quota.erasureDeadlineDays ?? null;
  const create = useMutation(
    trpc.topics.create.mutationOptions({
      onSuccess: async (result) => {
        if (result.validateOnly) return;
        // The form starts over (coming back finds it empty) and the new topic opens: its page is
        // where the next step (producing, connecting a client) is, and it shows the topic's warnings.
        name.set("");
        partitions.set("1");
        preset.set(CUSTOM);
        setPolicy("compact");
        setEdits({});
        setAttempted(false);
        create.reset();
        await queryClient.invalidateQueries({ queryKey: trpc.topics.list.queryKey() });
        router.push(`/topics/${encodeURIComponent(result.topic.name)}`);
      },
      onError: (error) => setRefused(serverFieldErrors(error.data?.problem, error.message)),
    }),
  );

  const chosenPreset = preset.value === CUSTOM ? null : preset.value;
  const presetPending = chosenPreset === "gdpr-table" && deadlineDays === null;
  // Until the deadline is known, gdpr-table's values are too (the server applies the preset anyway).
  const base = presetPending
    ? { configs: {}, error: null }
    : baseConfigs(chosenPreset, policy, deadlineDays ?? 0);
  const clientErrors: FieldErrors = {
    ...(attempted ? topicFieldErrors(name.value, partitions.value) : {}),
    ...configErrors(base.configs, edits),
  };
  const errors: FieldErrors = { ...clientErrors, ...refused?.fields };

  const edit = (config: TopicConfigName, input: FieldInput | null) => {
    setRefused(null);
    setEdits((current) => {
      const next = { ...current };
      if (input === null) delete next[config];
      else next[config] = input;
      return next;
    });
  };
  // The preview's erasure fix, typed into the fields in their units; the preview it came from is done.
  const applyFix = (fix: Record<string, string>) => {
    for (const [config, value] of Object.entries(fix)) {
      const field = configField(config);
      if (field) edit(field.name, toInput(field.name, value));
    }
    create.reset();
  };
  const send = (validateOnly: boolean) => {
    setAttempted(true);
    setRefused(null);
    const blocking = {
      ...topicFieldErrors(name.value, partitions.value),
      ...configErrors(base.configs, edits),
    };
    if (Object.keys(blocking).length > 0) return false;
    // A preset brings its own cleanup.policy; without one the chosen policy is set explicitly.
    const configs = { ...(chosenPreset ? {} : { "cleanup.policy": policy }), ...editedConfigs(edits) };
    create.mutate({
      name: name.value,
      partitions: Number(partitions.value),
      ...(chosenPreset ? { preset: chosenPreset } : {}),
      configs,
      validateOnly,
    });
  };
  const submit = () => send(false);
  const presetHint =
    preset.value === CUSTOM
      ? "Choose the cleanup policy yourself."
      : (base.error ?? TOPIC_PRESET_CHOICES.find((choice) => choice.value === preset.value)?.explanation);
  const invalidCount = Object.keys(errors).length;

  return (
    <FormCard
      title="Create a topic"
      description="You can change configs later; compacted topics keep their partition count."
      onSubmit={submit}
      className="grid gap-4 sm:grid-cols-2"
    >
      <TextField
        label="Topic name"
        required
        maxLength={249}
        pattern={TOPIC_NAME_PATTERN}
        {...name.bind}
        hint="Letters, digits, dots, underscores and dashes."
        error={errors.name}
      />
      <TextField
        label="Partitions"
        type="number"
        required
        min={1}
        max={256}
        {...partitions.bind}
        hint="Records with the same key always land in the same partition."
        error={errors.partitions}
      />
      <SelectField
        label="Preset"
        {...preset.bind}
        hint={presetHint}
        error={base.error ?? undefined}
        options={TOPIC_PRESET_CHOICES}
      >
        <option value={CUSTOM}>Custom</option>
      </SelectField>
      <SelectField
        label="Cleanup policy"
        value={chosenPreset ? (base.configs["cleanup.policy"] ?? policy) : policy}
        disabled={preset.value !== CUSTOM}
        onChange={(event) => setPolicy(event.target.value as CleanupPolicy)}
        hint={preset.value === CUSTOM ? explainPolicy(policy) : "Set by the preset."}
        options={CLEANUP_POLICIES}
      />
      <ul className="flex flex-col gap-1 text-xs text-muted sm:col-span-2">
        {TOPIC_PRESET_CHOICES.map((choice) => (
          <li key={choice.value}>
            <span className="font-medium text-ink">{choice.label}</span>: {choice.explanation}
          </li>
        ))}
      </ul>
      {presetPending ? (
        <p role="status" className="text-xs text-muted sm:col-span-2">
          Loading the organization's erasure deadline for the preset's values…
        </p>
      ) : null}
      <CreateTopicConfigs
        base={base.configs}
        edits={edits}
        errors={errors}
        sourceOf={(config, withEdits) => sourceOf(config, chosenPreset, base.configs, withEdits ? edits : {})}
        onEdit={edit}
      />
      <div className="flex flex-col gap-3 sm:col-span-2">
        {attempted && invalidCount > 0 && !refused ? (
          <ErrorNotice>
            {invalidCount === 1 ? "One field needs" : `${invalidCount} fields need`} a change first: see the
            messages next to them.
          </ErrorNotice>
        ) : null}
        {refused ? (
          <ErrorNotice>
            {refused.rest ?? "The server refused the topic: see the messages next to the fields."}
          </ErrorNotice>
        ) : null}
        {create.data && !create.isPending ? (
          <CreateTopicOutcome
            outcome={create.data}
            erasureDeadlineDays={deadlineDays}
            onApplyFix={applyFix}
          />
        ) : null}
        <div className="flex gap-2">
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? "Working…" : "Create topic"}
          </Button>
          <Button variant="secondary" disabled={create.isPending} onClick={() => send(true)}>
            Preview: check without creating
          </Button>
        </div>
      </div>
    </FormCard>
  );
}
