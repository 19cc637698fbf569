"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { humanConfigValue } from "@/lib/config-units";
import { onSubmit } from "@/lib/form-state";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";

interface ConfigEntry {
  name: string;
  value: string;
  default: string;
  source: "set" | "default";
}

type Action = { kind: "set"; validateOnly: boolean } | { kind: "reset" };

/** Changes one config at a time, so every change is a reviewable diff with its own warnings. */
export function ConfigEditForm({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(entries[0]?.name ?? "");
  const current = entries.find((entry) => entry.name === name);
  const [value, setValue] = useState(current?.value ?? "");
  const alter = useMutation(
    trpc.topics.alterConfigs.mutationOptions({
      onSuccess: (result) =>
        result.validateOnly
          ? undefined
          : queryClient.invalidateQueries({ queryKey: trpc.topics.get.queryKey({ topic }) }),
    }),
  );

  const choose = (next: string) => {
    setName(next);
    setValue(entries.find((entry) => entry.name === next)?.value ?? "");
    alter.reset();
  };
  const run = (action: Action) => {
    if (action.kind === "reset") alter.mutate({ topic, reset: [name] });
    else alter.mutate({ topic, set: { [name]: value.trim() }, validateOnly: action.validateOnly });
  };
  const submit = onSubmit(() => run({ kind: "set", validateOnly: false }));
  const human = humanConfigValue(name, value.trim());

  return (
    <form
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
        <TextField
          label="New value"
          required
          value={value}
          onChange={(event) => setValue(event.target.value)}
          hint={human ? `That is ${human}.` : `Default: ${current?.default ?? "none"}.`}
        />
      </div>
      {alter.isError ? <ErrorNotice>{alter.error.message}</ErrorNotice> : null}
      {alter.data ? (
        <ChangeSummary {...alter.data} defaultOf={(config) => defaultOf(entries, config)} />
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={alter.isPending}>
          Save change
        </Button>
        <Button
          variant="secondary"
          disabled={alter.isPending}
          onClick={() => run({ kind: "set", validateOnly: true })}
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
    </form>
  );
}

function defaultOf(entries: readonly ConfigEntry[], name: string): string {
  return entries.find((entry) => entry.name === name)?.default ?? "";
}

function ChangeSummary(props: {
  changes: readonly { name: string; before: string | null; after: string | null }[];
  warnings: readonly { code: string; message: string }[];
  validateOnly: boolean;
  defaultOf: (name: string) => string;
}) {
  // The API reports an unset config as null: say which value that means.
  const shown = (name: string, value: string | null) => value ?? `default ${props.defaultOf(name)}`;
  const lead = props.validateOnly ? "This change is valid and would set:" : "Saved:";
  return (
    <div role="status" className="flex flex-col gap-1 text-sm">
      {props.changes.length === 0 ? (
        <p className="text-muted">Nothing changes: the config already has that value.</p>
      ) : (
        <>
          <p className="text-muted">{lead}</p>
          <ul className="font-mono text-xs">
            {props.changes.map((change) => (
              <li key={change.name}>
                {change.name}: {shown(change.name, change.before)} → {shown(change.name, change.after)}
              </li>
            ))}
          </ul>
        </>
      )}
      {props.warnings.length > 0 ? (
        <ul className="list-disc pl-5 text-amber-700 dark:text-amber-300">
          {props.warnings.map((warning) => (
            <li key={warning.code}>{warning.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
