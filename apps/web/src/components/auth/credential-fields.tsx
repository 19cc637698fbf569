import type { InputHTMLAttributes } from "react";
import { TextField } from "../ui/field";

/** What `useInput(...).bind` spreads, plus the field's own error from `useFieldChecks`. */
type BoundField = Pick<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & { error?: string };

/**
 * The credentials both the sign-in and the sign-up form ask for, in one home so their labels, input
 * types and autocomplete tokens (what password managers fill by) cannot drift apart between them.
 */
export function EmailField(props: BoundField) {
  return <TextField label="Email" type="email" autoComplete="email" required {...props} />;
}

/** `current-password` when signing in, `new-password` (with its minimum) when choosing one. */
export function PasswordField(
  props: BoundField & {
    autoComplete: "current-password" | "new-password";
    minLength?: number;
    hint?: string;
  },
) {
  return <TextField label="Password" type="password" required {...props} />;
}
