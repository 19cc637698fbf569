"use client";

import type { Dispatch, SetStateAction } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import { Button } from "../ui/button";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice } from "../ui/notice";
import type { RegexTarget, SearchForm } from "./message-search-input";

/** How much one search may read, over as many requests as it takes (each shows its progress). */
export const SCAN_LIMITS = [1_000, 10_000, 100_000, 1_000_000] as const;

const REGEX_TARGETS: { value: RegexTarget; label: string }[] = [
  { value: "any", label: "Key, value or a header" },
  { value: "key", label: "Key" },
  { value: "value", label: "Value" },
  { value: "headers", label: "A header value" },
];

/** The filter fields, in the order they are laid out. */
const FILTER_FIELDS: {
  name: "key" | "value" | "headerKey" | "headerValue" | "jsonPath" | "jsonEquals";
  label: string;
  placeholder?: string;
}[] = [
  { name: "key", label: "Key contains" },
  { name: "value", label: "Value contains" },
  { name: "headerKey", label: "Header name" },
  { name: "headerValue", label: "Header value contains" },
  { name: "jsonPath", label: "JSON path", placeholder: "$.customer.id" },
  { name: "jsonEquals", label: "JSON path equals", placeholder: "any value" },
];

/** The message browser's search form: where to read, what to match, how much; the form as typed. */
export function MessageSearchForm(props: {
  form: SearchForm;
  /** The form's state setter: each field updates from the current form, not a stale copy. */
  onChange: Dispatch<SetStateAction<SearchForm>>;
  partitions: number;
  busy: boolean;
  following: boolean;
  formError: string | null;
  onSubmit: () => boolean;
  onStop: () => void;
  onToggleFollow: () => void;
}) {
  const { form, busy, following, formError } = props;
  const set = <K extends keyof SearchForm>(name: K, value: SearchForm[K]) =>
    props.onChange((current) => ({ ...current, [name]: value }));
  const chosen = form.partition === "all" ? partitionNumbers(props.partitions) : [form.partition];

  return (
    <Form aria-label="Browse messages" onSubmit={props.onSubmit} className="flex flex-col gap-4">
      <div className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField
          label="Partitions"
          value={form.partition}
          onChange={(event) =>
            set("partition", event.target.value === "all" ? "all" : Number(event.target.value))
          }
        >
          <option value="all">All partitions</option>
          {partitionNumbers(props.partitions).map((index) => (
            <option key={index} value={index}>
              Partition {index}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Start from"
          value={form.from}
          onChange={(event) => set("from", event.target.value as SearchForm["from"])}
        >
          <option value="earliest">Earliest</option>
          <option value="latest">Latest</option>
          <option value="offset">Offset</option>
          <option value="timestamp">Time</option>
        </SelectField>
        <div className="min-w-[15rem]">
          <TextField
            label="From time (local)"
            type="datetime-local"
            step={1}
            disabled={form.from !== "timestamp"}
            value={form.fromTime}
            onChange={(event) => set("fromTime", event.target.value)}
          />
        </div>
        <div className="min-w-[15rem]">
          <TextField
            label="Until time (local)"
            type="datetime-local"
            step={1}
            value={form.untilTime}
            onChange={(event) => set("untilTime", event.target.value)}
          />
        </div>
      </div>
      {form.from === "offset" ? (
        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm font-medium">Start offset per partition</legend>
          <div className="grid gap-3 sm:grid-cols-4 lg:grid-cols-8">
            {chosen.map((partition) => (
              <TextField
                key={partition}
                label={`Partition ${partition}`}
                inputMode="numeric"
                placeholder="0"
                value={form.offsets[partition] ?? ""}
                onChange={(event) => set("offsets", { ...form.offsets, [partition]: event.target.value })}
              />
            ))}
          </div>
        </fieldset>
      ) : null}
      <div className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {FILTER_FIELDS.map(({ name, label, placeholder }) => (
          <TextField
            key={name}
            label={label}
            placeholder={placeholder}
            value={form[name]}
            onChange={(event) => set(name, event.target.value)}
          />
        ))}
        <SelectField
          label="Show up to"
          value={form.limit}
          onChange={(event) => set("limit", Number(event.target.value))}
        >
          {[50, 100, 200, 500].map((n) => (
            <option key={n} value={n}>
              {n} records
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Scan up to"
          value={form.scanLimit}
          onChange={(event) => set("scanLimit", Number(event.target.value))}
        >
          {[...new Set([...SCAN_LIMITS, form.scanLimit])].map((n) => (
            <option key={n} value={n}>
              {n.toLocaleString("en")} records
            </option>
          ))}
        </SelectField>
      </div>
      <fieldset className="flex flex-col gap-3 rounded-md border border-line p-3">
        <legend className="px-1 text-sm font-medium">Programmable filter</legend>
        <div className="grid items-end gap-4 sm:grid-cols-2">
          <TextField
            label="Regular expression"
            placeholder="^order-\d+$"
            value={form.regex}
            onChange={(event) => set("regex", event.target.value)}
          />
          <SelectField
            label="Regular expression looks at"
            value={form.regexOn}
            onChange={(event) => set("regexOn", event.target.value as RegexTarget)}
          >
            {REGEX_TARGETS.map((target) => (
              <option key={target.value} value={target.value}>
                {target.label}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField
          label="JavaScript filter"
          rows={2}
          placeholder="return record.json?.total > 100 && record.headers.source === 'web'"
          value={form.javascript}
          onChange={(event) => set("javascript", event.target.value)}
          hint="A function body over record (partition, offset, timestamp, key, value, headers by name, json: the value parsed); return true to keep it. It runs on the server in a sandbox that sees only the record, at most 0.5 s a record."
        />
      </fieldset>
      <div className="flex flex-wrap items-center gap-3">
        {busy ? (
          <Button type="button" variant="danger" onClick={props.onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit">Search messages</Button>
        )}
        <Button type="button" variant="secondary" onClick={props.onToggleFollow}>
          {following ? "Stop following" : "Follow new records"}
        </Button>
      </div>
      {formError ? <ErrorNotice>{formError}</ErrorNotice> : null}
    </Form>
  );
}
