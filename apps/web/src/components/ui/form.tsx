"use client";

import { type FormEvent, type FormHTMLAttributes, useEffect, useRef, useState } from "react";

/**
 * Every console form. `noValidate`: a field's `required` or `type="email"` still tells assistive
 * tech and the keyboard what the field wants, but a refusal is the form's own sentence at the field
 * (`useFieldChecks`), never the browser's tooltip. The browser's own submit (a page load) is always
 * prevented; `onSubmit` returning false means it refused, and focus moves to the first field that
 * says why.
 */
export function Form({
  onSubmit,
  children,
  ...form
}: Omit<FormHTMLAttributes<HTMLFormElement>, "onSubmit" | "noValidate"> & {
  onSubmit: () => unknown;
}) {
  const ref = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (refusals > 0) ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusals]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (onSubmit() === false) setRefusals((n) => n + 1);
  };
  return (
    <form ref={ref} noValidate onSubmit={submit} {...form}>
      {children}
    </form>
  );
}
