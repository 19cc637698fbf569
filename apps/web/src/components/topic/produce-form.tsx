"use client";

import { type ChangeEvent, useEffect, useRef, useState } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import {
  buildDraft,
  type DraftField,
  EMPTY_DRAFT,
  type Encoding,
  type ProduceDraft,
  produceRefusal,
  type RecordsMode,
  writtenSentence,
} from "@/lib/produce-draft";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";
import { SchemaValueSelect, useSchemaProduce } from "./schema-produce";

const VALUE_HINTS: Record<RecordsMode, string> = {
  one: "An empty value is kept as an empty value; it does not delete the key.",
  lines:
    "Each non-empty line is one record, in the value format above; all share the key, headers and timestamp.",
  "json-array":
    'A JSON array, in one of two shapes. Values: each element is one record\'s JSON value, and all share the key and headers above. Records: every element an object with "value" and optionally "key" and "headers", as in [{"key": "user-1", "value": {"plan": "pro"}, "headers": {"source": "import"}}]; a text key is read in the key format above, other JSON is a JSON key, "value": null is a tombstone, and its headers come after the ones above. The timestamp is shared.',
};

const ENCODINGS = [
  { value: "string", label: "Text" },
  { value: "json", label: "JSON" },
  { value: "base64", label: "Base64 (bytes)" },
] as const satisfies readonly { value: Encoding; label: string }[];

/** The draft's string fields: `bind(name)` gives a control their value and change handler. */
type TextDraftField = {
  [K in keyof ProduceDraft]: ProduceDraft[K] extends string ? K : never;
}[keyof ProduceDraft];

/** A draft handed to the form from outside (the record drawer's "Produce again"); a new `id` refills it. */
export interface DraftSeed {
  id: number;
  draft: ProduceDraft;
}

export function ProduceForm({
  topic,
  partitions,
  seed,
}: {
  topic: string;
  partitions: number;
  seed?: DraftSeed | null;
}) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<ProduceDraft>(EMPTY_DRAFT);
  const frame = useRef<HTMLDivElement>(null);
  // A seed fills the form, which comes into view with its key field focused, ready to edit and send.
  useEffect(() => {
    if (!seed) return;
    setDraft(seed.draft);
    frame.current?.scrollIntoView({ block: "start" });
    frame.current?.querySelector<HTMLInputElement>("input")?.focus({ preventScroll: true });
  }, [seed]);
  const [invalid, setInvalid] = useState<{ field: DraftField; problem: string } | null>(null);
  const schema = useSchemaProduce(topic);
  const produce = useRefreshingMutation(trpc.records.produce.mutationOptions(), {
    refresh: [trpc.records.read.pathKey(), trpc.topics.get.queryKey({ topic })],
  });
  const set = <K extends keyof ProduceDraft>(name: K, value: ProduceDraft[K]) =>
    setDraft((current) => ({ ...current, [name]: value }));
  const errorAt = (field: DraftField) => (invalid?.field === field ? invalid.problem : undefined);
  const bind = <K extends TextDraftField>(name: K) => ({
    value: draft[name],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
      set(name, event.target.value as ProduceDraft[K]),
  });

  const submit = () => {
    // With a value schema the value is JSON, encoded by the server before it is produced.
    const built = buildDraft(schema.subject ? { ...draft, valueEncoding: "json" } : draft);
    if ("problem" in built) {
      setInvalid(built);
      // The last success line belongs to another record: it goes with the refusal.
      produce.reset();
      return false;
    }
    setInvalid(null);
    if (!schema.subject) {
      produce.mutate({ topic, records: built.records });
      return true;
    }
    schema.encodeRecords(built.records).then(
      (records) => produce.mutate({ topic, records }),
      (error: Error) => setInvalid({ field: "value", problem: error.message }),
    );
    return true;
  };

  const results = produce.data?.results ?? [];
  const sentCount = produce.variables?.records.length ?? 1;
  const failed = results.flatMap((result) => (result.error ? [result.error.detail] : []));
  const written = results.filter((result) => result.offset !== undefined);
  const sentTombstone = produce.variables?.records[0]?.value === null;
  return (
    <div ref={frame} className="min-w-0">
      <FormCard
        title="Produce a record"
        description="Send one record or several; they are acknowledged once on disk."
        onSubmit={submit}
        className="flex flex-col gap-4"
      >
        <div className="grid gap-4 sm:grid-cols-[2fr_1fr]">
          <TextField
            label="Key"
            {...bind("key")}
            error={errorAt("key")}
            hint="Leave it blank for no key; compacted topics need one."
          />
          <SelectField label="Key format" options={ENCODINGS} {...bind("keyEncoding")} />
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <SelectField label="Value format" options={ENCODINGS} {...bind("valueEncoding")} />
          <SelectField
            label="Records"
            value={draft.tombstone ? "one" : draft.mode}
            disabled={draft.tombstone}
            onChange={(event) => set("mode", event.target.value as RecordsMode)}
          >
            <option value="one">One record</option>
            <option value="lines">One per line</option>
            <option value="json-array">JSON array</option>
          </SelectField>
          <SelectField
            label="Target partition"
            value={draft.partition === null ? "auto" : String(draft.partition)}
            onChange={(event) =>
              set("partition", event.target.value === "auto" ? null : Number(event.target.value))
            }
          >
            <option value="auto">By key hash</option>
            {partitionNumbers(partitions).map((index) => (
              <option key={index} value={String(index)}>
                Partition {index}
              </option>
            ))}
          </SelectField>
        </div>
        <SchemaValueSelect schema={schema} />
        <TextAreaField
          label="Value"
          rows={4}
          disabled={draft.tombstone}
          value={draft.tombstone ? "" : draft.value}
          onChange={(event) => set("value", event.target.value)}
          hint={VALUE_HINTS[draft.tombstone ? "one" : draft.mode]}
          error={errorAt("value")}
        />
        <label className="flex items-start gap-2 text-sm">
          <input
            type="checkbox"
            checked={draft.tombstone}
            onChange={(event) => set("tombstone", event.target.checked)}
            className="mt-0.5 size-4 accent-accent"
          />
          <span>
            Tombstone: send a null value
            <span className="block text-xs text-muted">
              Compaction then removes the key's earlier values.
            </span>
          </span>
        </label>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextAreaField
            label="Headers"
            rows={2}
            {...bind("headers")}
            hint="One per line, as name: value (text)."
            error={errorAt("headers")}
          />
          <TextField
            label="Timestamp (local)"
            type="datetime-local"
            step="0.001"
            {...bind("timestamp")}
            hint="Blank: the time of writing."
            error={errorAt("timestamp")}
          />
        </div>
        {produce.isError ? (
          <ErrorNotice>
            {produceRefusal(produce.error.data?.problem, produce.error.message, sentCount)}
          </ErrorNotice>
        ) : null}
        {failed.length > 0 ? <ErrorNotice>{[...new Set(failed)].join(" ")}</ErrorNotice> : null}
        {written.length > 0 ? (
          <p role="status" className="text-sm text-muted">
            {written.length === 1 && sentCount === 1
              ? `${sentTombstone ? "Tombstone" : "Record"} written to partition ${written[0]?.partition} at offset ${written[0]?.offset}.`
              : writtenSentence(written)}
          </p>
        ) : null}
        <div>
          <SubmitButton label="Produce" pendingLabel="Producing…" pending={produce.isPending} />
        </div>
      </FormCard>
    </div>
  );
}
