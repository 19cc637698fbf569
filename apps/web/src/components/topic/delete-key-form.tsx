"use client";

import { filled } from "@/lib/field-checks";
import { useFieldChecks, useInput } from "@/lib/form-state";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { MutationFooter } from "../ui/form-footer";

export function DeleteKeyForm({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const key = useInput("");
  const remove = useRefreshingMutation(trpc.records.deleteKey.mutationOptions(), {
    refresh: [trpc.records.read.pathKey()],
  });
  const checks = useFieldChecks({ key: [key.value, [filled("Type the key whose tombstone to write.")]] });
  const submit = checks.guard(() => remove.mutate({ topic, key: key.value, keyType: "string" }));
  return (
    <FormCard
      title="Delete a key"
      description="Writes the key's tombstone. The cleaner removes its earlier values, then, after delete.retention.ms, the tombstone."
      onSubmit={submit}
      className="flex flex-col gap-4"
    >
      <TextField label="Key to delete" {...checks.field("key", key)} />
      <MutationFooter
        mutation={remove}
        done={
          remove.data ? (
            <>
              Tombstone written to partition {remove.data.partition} at offset {remove.data.offset}.
            </>
          ) : null
        }
        label="Delete key"
        pendingLabel="Deleting…"
        variant="danger"
      />
    </FormCard>
  );
}
