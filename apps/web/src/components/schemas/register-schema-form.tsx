"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

const TYPES = ["AVRO", "PROTOBUF", "JSON"] as const;
type Draft = { subject: string; schemaType: (typeof TYPES)[number]; schema: string };

/**
 * Registers a new version: "Check" asks whether the draft is compatible with the subject's level
 * (and parses), and only a draft that passed can be saved; editing it asks for a new check.
 */
export function RegisterSchemaForm(props: {
  subject: string | null;
  onRegistered: (subject: string) => void;
}) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<Draft>({ subject: props.subject ?? "", schemaType: "AVRO", schema: "" });
  const check = useMutation(trpc.schemas.check.mutationOptions());
  const register = useRefreshingMutation(trpc.schemas.register.mutationOptions(), {
    refresh: [trpc.schemas.subjects.queryKey(), trpc.schemas.subject.pathKey()],
  });
  // A draft changed after its check must be checked again.
  const edit = (next: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...next }));
    check.reset();
    register.reset();
  };
  const passed = check.data?.compatible === true && check.variables?.schema === draft.schema;
  const submit = () => {
    if (!passed) {
      check.mutate(draft);
      return true;
    }
    register.mutate(draft, { onSuccess: () => props.onRegistered(draft.subject) });
    return true;
  };
  return (
    <FormCard
      title="Register a schema"
      description="A new subject, or a new version of one. It is checked against the subject's compatibility level before it can be saved."
      onSubmit={submit}
      className="flex flex-col gap-4"
    >
      <div className="grid gap-4 sm:grid-cols-[2fr_1fr]">
        <TextField
          label="Subject"
          required
          value={draft.subject}
          onChange={(e) => edit({ subject: e.target.value })}
          hint="e.g. orders-value"
        />
        <SelectField
          label="Schema type"
          options={TYPES}
          value={draft.schemaType}
          onChange={(e) => edit({ schemaType: e.target.value as Draft["schemaType"] })}
        />
      </div>
      <TextAreaField
        label="Schema"
        rows={8}
        required
        value={draft.schema}
        onChange={(e) => edit({ schema: e.target.value })}
      />
      {check.isError ? <ErrorNotice>{check.error.message}</ErrorNotice> : null}
      {check.data && !check.data.compatible ? (
        <ErrorNotice>
          Not {check.data.level} compatible:{" "}
          {check.data.issues.map((i) => `${i.type} at ${i.location}: ${i.description}`).join("; ")}
        </ErrorNotice>
      ) : null}
      {passed && !register.data ? (
        <p role="status" className="text-sm text-muted">
          Compatible ({check.data?.level}). Register it to save it as a new version.
        </p>
      ) : null}
      {register.isError ? <ErrorNotice>{register.error.message}</ErrorNotice> : null}
      {register.data ? (
        <p role="status" className="text-sm text-muted">
          Registered {draft.subject} version {register.data.version} (schema id {register.data.id}).
        </p>
      ) : null}
      <div>
        <SubmitButton
          label={passed ? "Register" : "Check compatibility"}
          pendingLabel={passed ? "Registering…" : "Checking…"}
          pending={check.isPending || register.isPending}
          disabled={draft.subject === "" || draft.schema === ""}
        />
      </div>
    </FormCard>
  );
}
