"use client";

import type { RouterInputs } from "@lastword/api";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { SelectField } from "../ui/field";

type ProducedRecord = RouterInputs["records"]["produce"]["records"][number];

/**
 * The produce form's "produce with a schema": a subject to encode the value with (the topic's own
 * `<topic>-value` first), and the encoding itself, done by the server with the schema's library so
 * a value that does not fit is refused with its reason before anything is sent.
 */
export function useSchemaProduce(topic: string) {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const subjects = useQuery({ ...trpc.schemas.subjects.queryOptions(), enabled: access.can("schemas:read") });
  const encode = useMutation(trpc.schemas.encode.mutationOptions());
  const [subject, setSubject] = useState("");
  const own = `${topic}-value`;
  const names = (subjects.data?.subjects ?? [])
    .map((s) => s.subject)
    .sort((a, b) => (a === own ? -1 : b === own ? 1 : 0));
  /** The records with each JSON value replaced by its Confluent-framed encoding (base64). */
  const encodeRecords = (records: readonly ProducedRecord[]): Promise<ProducedRecord[]> =>
    Promise.all(
      records.map(async (record) => {
        if (!subject || !record.value || record.value.data === null) return record;
        const encoded = await encode.mutateAsync({ subject, value: record.value.data });
        return { ...record, value: { type: "base64" as const, data: encoded.base64 } };
      }),
    );
  return { subject, setSubject, names, encodeRecords, available: names.length > 0 };
}

export function SchemaValueSelect(props: { schema: ReturnType<typeof useSchemaProduce> }) {
  const { schema } = props;
  if (!schema.available) return null;
  return (
    <SelectField
      label="Value schema"
      value={schema.subject}
      onChange={(event) => schema.setSubject(event.target.value)}
      hint="With a schema, the value is JSON, checked and encoded with the subject's latest version (Confluent's wire format)."
    >
      <option value="">None (bytes as given)</option>
      {schema.names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </SelectField>
  );
}
