import type { FormEvent, ReactNode } from "react";
import { Button } from "../ui/button";
import { ErrorNotice } from "../ui/notice";

/** The shared shape of the sign-in and sign-up forms: heading, fields, one submit, one error line. */
export function AuthFormFrame(props: {
  title: string;
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  error: string | null;
  onSubmit: () => void;
  footer: ReactNode;
  children: ReactNode;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    <form
      onSubmit={submit}
      aria-labelledby="auth-title"
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-6 shadow-sm"
    >
      <h1 id="auth-title" className="text-xl font-semibold">
        {props.title}
      </h1>
      {props.children}
      {props.error ? <ErrorNotice>{props.error}</ErrorNotice> : null}
      <Button type="submit" disabled={props.pending}>
        {props.pending ? props.pendingLabel : props.submitLabel}
      </Button>
      <p className="text-center text-sm text-muted">{props.footer}</p>
    </form>
  );
}
