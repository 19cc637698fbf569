import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { type AuthCallResult, useAuthAction } from "@/lib/auth-action";
import { Form } from "../ui/form";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";
import { type AuthEntry, afterAuthPath, authEntryQuery } from "./after-auth";

/**
 * The shared shape of the sign-in and sign-up forms: heading, fields, one submit, one error line,
 * and a link to the other form. A successful submit continues where the visitor was headed.
 */
export function AuthFormFrame(props: {
  title: string;
  submitLabel: string;
  pendingLabel: string;
  entry: AuthEntry;
  /** The better-auth call the form makes, and the error line for a failure it sends no message for. */
  call: () => Promise<AuthCallResult>;
  fallbackError: string;
  /** The other form ("New to Lastword?" → "Create an account"); the link keeps the invitation. */
  other: { prompt: string; path: "/sign-in" | "/sign-up"; label: string };
  /** The fields' own checks (`useFieldChecks`): the call is made only once they pass. */
  guard: (run: () => void) => () => boolean;
  children: ReactNode;
}) {
  const router = useRouter();
  const action = useAuthAction();
  const submit = props.guard(() => {
    void action.run(true, props.call, {
      fallback: props.fallbackError,
      staysPending: true,
      onSuccess: () => {
        router.push(afterAuthPath(props.entry));
        router.refresh();
      },
    });
  });
  return (
    <Form
      onSubmit={submit}
      aria-labelledby="auth-title"
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-6 shadow-sm"
    >
      <h1 id="auth-title" className="text-xl font-semibold">
        {props.title}
      </h1>
      {props.children}
      {action.error ? <ErrorNotice>{action.error}</ErrorNotice> : null}
      <SubmitButton label={props.submitLabel} pendingLabel={props.pendingLabel} pending={action.busy} />
      <p className="text-center text-sm text-muted">
        {props.other.prompt}{" "}
        <Link
          className="font-medium text-accent underline-offset-2 hover:underline"
          href={`${props.other.path}${authEntryQuery(props.entry)}`}
        >
          {props.other.label}
        </Link>
      </p>
    </Form>
  );
}
