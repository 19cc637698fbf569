"use client";

import type { TopicConfigName } from "@lastword/api/topic-rules";
import { useEffect, useState } from "react";
import { CONFIG_FIELDS, type FieldErrors, type FieldInput, type FieldSource } from "@/lib/topic-config-form";
import { CreateTopicConfigField } from "./create-topic-config-field";

interface Props {
  base: Record<string, string>;
  edits: Partial<Record<TopicConfigName, FieldInput>>;
  errors: FieldErrors;
  /** Where a config's value comes from; without the edits, what it would be without the user's change. */
  sourceOf: (name: TopicConfigName, withEdits: boolean) => FieldSource;
  onEdit: (name: TopicConfigName, input: FieldInput | null) => void;
}

/**
 * Every config the API accepts, collapsed by default (a native disclosure: keyboard-operable and
 * announced). cleanup.policy is the form's own field above, so here it is shown, not edited.
 */
export function CreateTopicConfigs({ base, edits, errors, sourceOf, onEdit }: Props) {
  const changed = Object.keys(edits).length;
  const invalid = CONFIG_FIELDS.some((field) => errors[field.name]);
  const [open, setOpen] = useState(false);
  // A refused config must be visible: open the section when one has an error, never close it.
  useEffect(() => {
    if (invalid) setOpen(true);
  }, [invalid]);
  return (
    <details
      className="rounded-md border border-line px-3 py-2 sm:col-span-2"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary className="cursor-pointer text-sm font-medium">
        All configs{changed > 0 ? ` (${changed} changed)` : ""}
      </summary>
      <fieldset aria-label="All configs" className="mt-2">
        {CONFIG_FIELDS.map((field) =>
          field.name === "cleanup.policy" ? (
            <p key={field.name} className="border-b border-line py-3 text-xs text-muted">
              <span className="font-mono font-medium text-ink">cleanup.policy</span>{" "}
              {base[field.name] ?? field.default} — set with the cleanup policy or the preset above.
            </p>
          ) : (
            <CreateTopicConfigField
              key={field.name}
              field={field}
              base={base[field.name] ?? field.default}
              source={sourceOf(field.name, true)}
              fromPreset={sourceOf(field.name, false) === "preset"}
              edit={edits[field.name]}
              error={errors[field.name]}
              onEdit={(input) => onEdit(field.name, input)}
              onReset={() => onEdit(field.name, null)}
            />
          ),
        )}
      </fieldset>
    </details>
  );
}
