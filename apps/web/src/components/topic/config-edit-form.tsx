"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { configValueText } from "@/lib/config-units";
import { filled } from "@/lib/field-checks";
import { useFieldChecks } from "@/lib/form-state";
import { configField, type FieldInput, toInput, toRaw } from "@/lib/topic-config-form";
import { useTRPC } from "@/lib/trpc";
import { ConfigValueInput } from "../topics/config-value-input";
import { Button } from "../ui/button";
import { Field, SelectField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice } from "../ui/notice";
import { ConfigChangeSummary } from "./config-change-summary";
import type { ConfigEntry } from "./config-entry";

type Action = { kind: "set"; validateOnly: boolean } | { kind: "reset" };

function inputFor(name: string, raw: string): FieldInput {
  const field = configField(name);
  return field ? toInput(field.name, raw) : { amount: raw, unit: "" };
}

function rawOf(name: string, input: FieldInput): string {
  const field = configField(name);
  return field ? toRaw(field.name, input) : input.amount.trim();
}

/**
 * Changes one config at a time, so every change is a reviewable diff with its own warnings. The
 * value is typed in the unit the create wizard uses (hours, MiB, "no limit"), and sent in Kafka's.
 */
export function ConfigEditForm({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(entries[0]?.name ?? "");
  const current = entries.find((entry) => entry.name === name);
  const [input, setInput] = useState<FieldInput>(() => inputFor(name, current?.value ?? ""));
  const alter = useMutation(
    trpc.topics.alterConfigs.mutationOptions({
      onSuccess: (result) =>
        result.validateOnly
          ? undefined
          : Promise.all([
              queryClient.invalidateQueries({ queryKey: trpc.topics.get.queryKey({ topic }) }),
              queryClient.invalidateQueries({ queryKey: trpc.topics.configHistory.pathKey() }),
            ]),
    }),
  );

  const raw = rawOf(name, input);
  const field = configField(name);
  // A config the wizard knows has its own input (units, "no limit"); any other is typed as Kafka's text.
  const checks = useFieldChecks({
    value: [
      input.amount,
      field ? [] : [filled(`Type the new value of ${name}, or reset it to its default.`)],
    ],
  });
  const choose = (next: string) => {
    setName(next);
    setInput(inputFor(next, entries.find((entry) => entry.name === next)?.value ?? ""));
    alter.reset();
    checks.reset();
  };
  const run = (action: Action) => {
    if (action.kind === "reset") alter.mutate({ topic, reset: [name] });
    else alter.mutate({ topic, set: { [name]: raw }, validateOnly: action.validateOnly });
  };
  const submit = checks.guard(() => run({ kind: "set", validateOnly: false }));
  const fallback = current?.default ? `Default: ${configValueText(name, current.default)}.` : "";

  return (
    <Form
      aria-label="Change a config"
      onSubmit={submit}
      className="mt-6 flex flex-col gap-4 border-t border-line pt-4"
    >
      <h3 className="text-sm font-semibold">Change a config</h3>
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField
          label="Config"
          value={name}
          onChange={(event) => choose(event.target.value)}
          options={entries.map((entry) => ({ value: entry.name, label: entry.name }))}
        />
        <Field
          label="New value"
          error={checks.errors.value}
          hint={`${raw === "" ? "" : `Sends ${name}=${raw}. `}${fallback}`}
          control={(links) => (
            <div className="flex flex-wrap items-center gap-2">
              {field ? (
                <ConfigValueInput
                  id={links.id}
                  field={field}
                  input={input}
                  describedBy={links["aria-describedby"]}
                  onChange={setInput}
                />
              ) : (
                <input
                  {...links}
                  required
                  value={input.amount}
                  onChange={(event) => setInput({ amount: event.target.value, unit: "" })}
                  className="rounded-md border border-line bg-surface px-2 py-1.5 text-sm"
                />
              )}
            </div>
          )}
        />
      </div>
      {alter.isError ? <ErrorNotice>{alter.error.message}</ErrorNotice> : null}
      {alter.data ? <ConfigChangeSummary {...alter.data} entries={entries} /> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={alter.isPending}>
          Save change
        </Button>
        <Button
          variant="secondary"
          disabled={alter.isPending}
          onClick={checks.guard(() => run({ kind: "set", validateOnly: true }))}
        >
          Check without saving
        </Button>
        <Button
          variant="secondary"
          disabled={alter.isPending || current?.source !== "set"}
          onClick={() => run({ kind: "reset" })}
        >
          Reset to default
        </Button>
      </div>
    </Form>
  );
}
