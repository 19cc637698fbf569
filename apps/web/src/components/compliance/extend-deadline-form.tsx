"use client";

import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { TextAreaField, TextField } from "../ui/field";
import { Form } from "../ui/form";
import { FormFooter } from "../ui/form-footer";

/** Moves an open request's deadline later; the reason is kept on the request and in the audit trail. */
export function ExtendDeadlineForm({ id }: { id: string }) {
  const trpc = useTRPC();
  const deadline = useInput("");
  const reason = useInput("");
  const checks = useFieldChecks({
    // A datetime-local input holds "" until its date and time are both complete.
    deadline: [deadline.value, [filled("Choose the new deadline: a date and a time.")]],
    reason: [reason.value, [filled("Say why the deadline is extended; it is kept in the audit trail.")]],
  });
  const extend = useRefreshingMutation(trpc.erasure.extend.mutationOptions(), {
    refresh: [trpc.erasure.get.queryKey({ id })],
    reset: () => {
      deadline.set("");
      reason.set("");
      checks.reset();
    },
  });
  const submit = checks.guard(() =>
    extend.mutate({ id, deadlineAt: new Date(deadline.value).toISOString(), reason: reason.value }),
  );
  return (
    <Form
      aria-label="Extend the deadline"
      onSubmit={submit}
      className="mt-4 flex flex-col gap-3 border-t border-line pt-4"
    >
      <TextField label="New deadline" type="datetime-local" {...checks.field("deadline", deadline)} />
      <TextAreaField
        label="Reason for the extension"
        hint="Recorded with the request and in the audit trail (Art. 12(3) allows two more months for complex requests)."
        rows={2}
        {...checks.field("reason", reason)}
      />
      <FormFooter
        error={extend.isError ? <>We could not extend the deadline: {extend.error.message}</> : null}
        label="Extend deadline"
        pendingLabel="Extending…"
        pending={extend.isPending}
        variant="secondary"
      />
    </Form>
  );
}
