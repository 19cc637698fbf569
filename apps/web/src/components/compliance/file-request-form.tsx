"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useConsoleAccess } from "@/lib/console-access";
import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { TextAreaField, TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";
import { TopicPreflight } from "./topic-preflight";

/** One subject key per line, blank lines ignored, each sent as its UTF-8 text. */
function parseKeys(text: string): string[] {
  return [...new Set(text.split("\n").map((line) => line.trim()))].filter((line) => line !== "");
}

/**
 * Files an erasure request: subject keys, the topics in scope (chosen, or every compacted one), an
 * optional deadline (the tenant's default otherwise), requester and notes. On success it opens the
 * request's page, where its tombstones and deadline are shown.
 */
export function FileRequestForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const access = useConsoleAccess();
  const queryClient = useQueryClient();
  const topics = useQuery(trpc.erasure.topics.queryOptions({}));
  const keys = useInput("");
  const [allCompacted, setAllCompacted] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const deadline = useInput("");
  const requester = useInput("");
  const notes = useInput("");
  const create = useMutation(
    trpc.erasure.create.mutationOptions({
      onSuccess: async (request) => {
        await queryClient.invalidateQueries({ queryKey: trpc.erasure.list.pathKey() });
        router.push(`/compliance/requests/${request.id}`);
      },
    }),
  );
  const preflight = useMutation(trpc.erasure.preflight.mutationOptions());
  const subjectKeys = parseKeys(keys.value);
  const scopeMissing = !allCompacted && chosen.length === 0;
  const scope = {
    ...(allCompacted ? { allCompacted: true } : { topics: chosen }),
    ...(deadline.value ? { deadlineAt: new Date(deadline.value).toISOString() } : {}),
  };
  const checks = useFieldChecks({
    keys: [subjectKeys.join("\n"), [filled("Enter at least one subject key, one per line.")]],
  });
  const submit = checks.guard(() =>
    create.mutate({
      keys: subjectKeys.map((data) => ({ type: "string" as const, data })),
      ...scope,
      ...(requester.value ? { requester: requester.value } : {}),
      ...(notes.value ? { notes: notes.value } : {}),
    }),
  );
  const toggle = (topic: string, on: boolean) =>
    setChosen((current) => (on ? [...current, topic] : current.filter((t) => t !== topic)));
  const compacted = topics.data?.topics.map((t) => t.topic) ?? [];
  if (access.ready && !access.can("erasure:write")) {
    return (
      <Card title="File an erasure request">
        <StatusNotice>
          Your role cannot file erasure requests; the compliance role, an admin or the owner can.
        </StatusNotice>
      </Card>
    );
  }
  return (
    <FormCard
      title="File an erasure request"
      description="Tombstones are written at once in every partition that holds the key; the workers then prove the old values gone before the deadline."
      onSubmit={submit}
      className="flex flex-col gap-4"
    >
      <TextAreaField
        label="Subject keys"
        hint="One key per line, exactly as producers write it."
        rows={3}
        {...checks.field("keys", keys)}
      />
      <fieldset className="flex flex-col gap-2">
        <legend className="text-sm font-medium">Scope</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="scope" checked={!allCompacted} onChange={() => setAllCompacted(false)} />
          Chosen topics
        </label>
        {!allCompacted ? (
          <div className="ml-6 flex flex-col gap-1">
            {topics.isPending ? <p className="text-sm text-muted">Loading compacted topics…</p> : null}
            {topics.isError ? (
              <ErrorNotice>We could not load the compacted topics: {topics.error.message}</ErrorNotice>
            ) : null}
            {topics.data && compacted.length === 0 ? (
              <p className="text-sm text-muted">This organization has no compacted topics yet.</p>
            ) : null}
            {compacted.map((topic) => (
              <label key={topic} className="flex items-center gap-2 font-mono text-sm">
                <input
                  type="checkbox"
                  checked={chosen.includes(topic)}
                  onChange={(event) => toggle(topic, event.target.checked)}
                />
                {topic}
              </label>
            ))}
          </div>
        ) : null}
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="scope" checked={allCompacted} onChange={() => setAllCompacted(true)} />
          All compacted topics
        </label>
      </fieldset>
      <TextField
        label="Deadline"
        type="datetime-local"
        hint={
          topics.data
            ? `Optional. Without one: ${topics.data.deadlineDays} days after the request is received.`
            : "Optional. Without one: the organization's default deadline."
        }
        {...deadline.bind}
      />
      <TextField label="Requester" {...requester.bind} />
      <TextAreaField label="Notes" rows={2} {...notes.bind} />
      {preflight.isError ? (
        <ErrorNotice>We could not check the deadline: {preflight.error.message}</ErrorNotice>
      ) : null}
      {preflight.data ? (
        <div role="status" aria-label="Deadline check" className="flex flex-col gap-2">
          <p className="text-sm">
            {preflight.data.topics.every((t) => t.preflight.meetsDeadline)
              ? "Every topic in scope meets this deadline with its own configs."
              : "Some topics cannot meet this deadline with their own configs: the workers will force their passes, and the change shown fixes the topic for good."}
          </p>
          <TopicPreflight entries={preflight.data.topics} label="Deadline check per topic" />
        </div>
      ) : null}
      {create.isError ? (
        <ErrorNotice>We could not file the request: {create.error.message}</ErrorNotice>
      ) : null}
      <div className="flex items-center gap-3">
        <SubmitButton
          label="File request"
          pendingLabel="Writing tombstones…"
          pending={create.isPending}
          disabled={scopeMissing}
        />
        <Button
          variant="secondary"
          disabled={preflight.isPending || scopeMissing}
          onClick={() => preflight.mutate(scope)}
        >
          {preflight.isPending ? "Checking…" : "Check the deadline"}
        </Button>
        {scopeMissing ? (
          <p className="text-xs text-muted">Choose at least one topic, or all compacted topics.</p>
        ) : null}
      </div>
    </FormCard>
  );
}
