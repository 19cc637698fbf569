"use client";

import { onSubmit, useInput } from "@/lib/form-state";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { TextAreaField, TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

/** Moves an open request's deadline later; the reason is kept on the request and in the audit trail. */
export function ExtendDeadlineForm({ id }: { id: string }) {
  const trpc = useTRPC();
  const deadline = useInput("");
  const reason = useInput("");
  const extend = useRefreshingMutation(trpc.erasure.extend.mutationOptions(), {
    refresh: [trpc.erasure.get.queryKey({ id })],
    reset: () => {
      deadline.set("");
      reason.set("");
    },
  });
  const submit = onSubmit(() =>
    extend.mutate({ id, deadlineAt: new Date(deadline.value).toISOString(), reason: reason.value }),
  );
  return (
    <form
      aria-label="Extend the deadline"
      onSubmit={submit}
      className="mt-4 flex flex-col gap-3 border-t border-line pt-4"
    >
      <TextField label="New deadline" type="datetime-local" required {...deadline.bind} />
      <TextAreaField
        label="Reason for the extension"
        hint="Recorded with the request and in the audit trail (Art. 12(3) allows two more months for complex requests)."
        required
        rows={2}
        {...reason.bind}
      />
      {extend.isError ? (
        <ErrorNotice>We could not extend the deadline: {extend.error.message}</ErrorNotice>
      ) : null}
      <div>
        <SubmitButton
          label="Extend deadline"
          pendingLabel="Extending…"
          pending={extend.isPending}
          disabled={deadline.value === "" || reason.value.trim() === ""}
          variant="secondary"
        />
      </div>
    </form>
  );
}
