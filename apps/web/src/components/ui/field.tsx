import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
} from "react";

const controlClass =
  "w-full rounded-md border border-line bg-surface px-3 py-2 text-sm text-ink placeholder:text-muted focus:border-accent";

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string;
}

/** What ties a control to its label, hint and error, so a screen reader announces them together. */
export interface ControlLinks {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/** A labelled control of the caller's own (several inputs under one label), wired like the others. */
export function Field({
  label,
  hint,
  error,
  control,
}: FieldProps & { control: (links: ControlLinks) => ReactNode }) {
  const id = useId();
  const links: ControlLinks = {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy(id, hint, error),
  };
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      {control(links)}
    </FieldFrame>
  );
}

/** A labelled input whose hint and error are announced with it (aria-describedby). */
export function TextField(props: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const { field, control } = splitField(props);
  return <Field {...field} control={(links) => <input className={controlClass} {...links} {...control} />} />;
}

export function TextAreaField(props: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { field, control } = splitField(props);
  const className = `${controlClass} font-mono disabled:opacity-60`;
  return <Field {...field} control={(links) => <textarea className={className} {...links} {...control} />} />;
}

/** A choice: its value, and the text shown when that is not the value itself. */
export type SelectOption = string | { value: string; label: string };

/** A labelled select: `options` are listed after any `children` (fixed first entries such as "Custom"). */
export function SelectField(
  props: FieldProps & { options?: readonly SelectOption[] } & SelectHTMLAttributes<HTMLSelectElement>,
) {
  const {
    field,
    control: { options = [], children, ...select },
  } = splitField(props);
  const entries = options.map((option) =>
    typeof option === "string" ? { value: option, label: option } : option,
  );
  return (
    <Field
      {...field}
      control={(links) => (
        <select className={controlClass} {...links} {...select}>
          {children}
          {entries.map((entry) => (
            <option key={entry.value} value={entry.value}>
              {entry.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

function FieldFrame({ id, label, hint, error, children }: FieldProps & { id: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-xs text-danger">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A field's own props (label, hint, error) apart from those its control gets. */
function splitField<P extends FieldProps>({ label, hint, error, ...control }: P) {
  return { field: { label, hint, error }, control };
}

function describedBy(id: string, hint: ReactNode, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}
