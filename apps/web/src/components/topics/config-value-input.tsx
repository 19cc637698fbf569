"use client";

import { type ConfigField, type FieldInput, isSpecialUnit } from "@/lib/topic-config-form";

const controlClass =
  "rounded-md border border-line bg-surface px-2 py-1.5 text-sm text-ink focus:border-accent disabled:opacity-60";

interface Props {
  /** The id the caller's <label> points at (the amount, or the choice). */
  id: string;
  field: ConfigField;
  input: FieldInput;
  describedBy?: string | undefined;
  invalid?: boolean;
  onChange: (input: FieldInput) => void;
}

/**
 * A config's value as people think of it: a choice, or an amount with its unit (hours, MiB, "no
 * limit"). The create wizard and the topic page's Configs tab edit with this one control, so a
 * value reads the same at creation and after.
 */
export function ConfigValueInput({ id, field, input, describedBy, invalid, onChange }: Props) {
  return (
    <>
      {field.kind === "choice" ? (
        <select
          id={id}
          className={controlClass}
          value={input.amount}
          aria-describedby={describedBy}
          onChange={(event) => onChange({ amount: event.target.value, unit: "" })}
        >
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          className={`${controlClass} w-40`}
          inputMode="decimal"
          value={isSpecialUnit(input.unit) ? "" : input.amount}
          disabled={isSpecialUnit(input.unit)}
          placeholder={
            isSpecialUnit(input.unit)
              ? field.units.find((unit) => unit.value === input.unit)?.label
              : undefined
          }
          aria-invalid={invalid ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => onChange({ amount: event.target.value, unit: input.unit })}
        />
      )}
      {field.units.length > 0 ? (
        <select
          aria-label={`${field.name} unit`}
          className={controlClass}
          value={input.unit}
          onChange={(event) => onChange({ amount: input.amount, unit: event.target.value })}
        >
          {field.units.map((unit) => (
            <option key={unit.value} value={unit.value}>
              {unit.label}
            </option>
          ))}
        </select>
      ) : null}
    </>
  );
}
