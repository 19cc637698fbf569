import type { ReactNode } from "react";
import { ErrorNotice } from "./notice";
import { SubmitButton } from "./submit-button";

/**
 * The end of a console form that sends one mutation: why it failed (role=alert), what it did
 * (role=status), then its submit on a row of its own. One home, so every form reports its outcome
 * the same way and in the same order; a form passes null for what it has not got to say.
 */
export function FormFooter({
  error,
  done,
  ...submit
}: {
  error?: ReactNode;
  done?: ReactNode;
} & Parameters<typeof SubmitButton>[0]) {
  return (
    <>
      {error ? <ErrorNotice>{error}</ErrorNotice> : null}
      {done ? (
        <p role="status" className="text-sm text-muted">
          {done}
        </p>
      ) : null}
      <div>
        <SubmitButton {...submit} />
      </div>
    </>
  );
}

/**
 * The FormFooter of a form that sends one react-query mutation: its failure's message and its
 * pending state come from the mutation itself.
 */
export function MutationFooter({
  mutation,
  ...footer
}: {
  mutation: { isPending: boolean; error: { message: string } | null };
} & Omit<Parameters<typeof FormFooter>[0], "error" | "pending">) {
  return (
    <FormFooter
      error={mutation.error ? mutation.error.message : null}
      pending={mutation.isPending}
      {...footer}
    />
  );
}
