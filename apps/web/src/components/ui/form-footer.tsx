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
