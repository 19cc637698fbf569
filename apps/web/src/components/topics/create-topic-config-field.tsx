"use client";

import { useId } from "react";
import { humanConfigValue } from "@/lib/config-units";
import { type ConfigField, type FieldInput, type FieldSource, toInput } from "@/lib/topic-config-form";
import { Badge } from "../ui/badge";
import { ConfigValueInput } from "./config-value-input";

interface Props {
  field: ConfigField;
  /** The preset's (or the default) value in Kafka notation, what the field shows until edited. */
  base: string;
  source: FieldSource;
  /** Whether `base` is the preset's value rather than Kafka's default. */
  fromPreset: boolean;
  edit: FieldInput | undefined;
  error: string | undefined;
  onEdit: (input: FieldInput) => void;
  onReset: () => void;
}

/** One config of the create wizard: its value in its unit, where the value comes from, its rule. */
export function CreateTopicConfigField({
  field,
  base,
  source,
  fromPreset,
  edit,
  error,
  onEdit,
  onReset,
}: Props) {
  const id = useId();
  const input = edit ?? toInput(field.name, base);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = error ? `${hintId} ${errorId}` : hintId;
  const shownBase = humanConfigValue(field.name, base) ?? base;

  return (
    <div data-config={field.name} className="flex flex-col gap-1 border-b border-line py-3 last:border-0">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={id} className="font-mono text-xs font-medium">
          {field.name}
        </label>
        {source === "preset" ? <Badge tone="accent">from preset</Badge> : null}
        {source === "edited" ? <Badge>edited</Badge> : null}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <ConfigValueInput
          id={id}
          field={field}
          input={input}
          describedBy={described}
          invalid={error !== undefined}
          onChange={onEdit}
        />
        {source === "edited" ? (
          <button
            type="button"
            className="text-xs text-accent underline underline-offset-2"
            onClick={onReset}
            aria-label={`Undo the change to ${field.name}`}
          >
            Undo
          </button>
        ) : null}
      </div>
      <p id={hintId} className="text-xs text-muted">
        {field.doc}. {fromPreset ? `Preset: ${shownBase}.` : `Default: ${shownBase}.`}
      </p>
      {error ? (
        <p id={errorId} className="text-xs text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}
