"use client";

import { type FormEvent, useState } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

type ValueFormat = "string" | "json";
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The value to send: null is a tombstone; "" as text is an empty value, which is not one. */
function valueEnvelope(tombstone: boolean, format: ValueFormat, text: string) {
  if (tombstone) return { envelope: null } as const;
  if (format === "string") return { envelope: { type: "string" as const, data: text } };
  try {
    return { envelope: { type: "json" as const, data: JSON.parse(text) as Json } };
  } catch (error) {
    return {
      invalid: `The value is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

export function ProduceForm({ topic, partitions }: { topic: string; partitions: number }) {
  const trpc = useTRPC();
  const [key, setKey] = useState("");
  const [format, setFormat] = useState<ValueFormat>("string");
  const [value, setValue] = useState("");
  const [tombstone, setTombstone] = useState(false);
  const [partition, setPartition] = useState("auto");
  const [invalid, setInvalid] = useState<string | null>(null);
  const produce = useRefreshingMutation(trpc.records.produce.mutationOptions(), {
    refresh: [trpc.records.read.pathKey(), trpc.topics.get.queryKey({ topic })],
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const built = valueEnvelope(tombstone, format, value);
    setInvalid(built.invalid ?? null);
    if (built.invalid !== undefined) return;
    const record = {
      key: key === "" ? null : { type: "string" as const, data: key },
      value: built.envelope,
      ...(partition === "auto" ? {} : { partition: Number(partition) }),
    };
    produce.mutate({ topic, records: [record] });
  };

  const result = produce.data?.results[0];
  const sentTombstone = produce.variables?.records[0]?.value === null;
  return (
    <Card title="Produce a record" description="Send one record; it is acknowledged once it is on disk.">
      <form aria-label="Produce a record" onSubmit={submit} className="flex flex-col gap-4">
        <TextField
          label="Key"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          hint="Text. Leave it blank for no key; compacted topics need one."
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Value format"
            value={format}
            onChange={(event) => setFormat(event.target.value as ValueFormat)}
          >
            <option value="string">Text</option>
            <option value="json">JSON</option>
          </SelectField>
          <SelectField
            label="Target partition"
            value={partition}
            onChange={(event) => setPartition(event.target.value)}
          >
            <option value="auto">By key hash</option>
            {partitionNumbers(partitions).map((index) => (
              <option key={index} value={String(index)}>
                Partition {index}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField
          label="Value"
          rows={4}
          disabled={tombstone}
          value={tombstone ? "" : value}
          onChange={(event) => setValue(event.target.value)}
          hint="An empty value is kept as an empty value; it does not delete the key."
          error={invalid ?? undefined}
        />
        <label className="flex items-start gap-2 text-sm">
          <input
            type="checkbox"
            checked={tombstone}
            onChange={(event) => setTombstone(event.target.checked)}
            className="mt-0.5 size-4 accent-accent"
          />
          <span>
            Tombstone: send a null value
            <span className="block text-xs text-muted">
              Compaction then removes the key's earlier values.
            </span>
          </span>
        </label>
        {produce.isError ? <ErrorNotice>{produce.error.message}</ErrorNotice> : null}
        {result?.error ? <ErrorNotice>{result.error.detail}</ErrorNotice> : null}
        {result && result.offset !== undefined ? (
          <p role="status" className="text-sm text-muted">
            {sentTombstone ? "Tombstone" : "Record"} written to partition {result.partition} at offset{" "}
            {result.offset}.
          </p>
        ) : null}
        <div>
          <SubmitButton label="Produce record" pendingLabel="Producing…" pending={produce.isPending} />
        </div>
      </form>
    </Card>
  );
}
