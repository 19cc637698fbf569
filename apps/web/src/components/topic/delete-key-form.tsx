"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { TextField } from "../ui/field";
import { ErrorNotice } from "../ui/notice";

export function DeleteKeyForm({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const remove = useMutation(
    trpc.records.deleteKey.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.records.read.pathKey() }),
    }),
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    remove.mutate({ topic, key, keyType: "string" });
  };
  return (
    <Card
      title="Delete a key"
      description="Writes the key's tombstone. The cleaner removes its earlier values, then, after delete.retention.ms, the tombstone."
    >
      <form aria-label="Delete a key" onSubmit={submit} className="flex flex-col gap-4">
        <TextField
          label="Key to delete"
          required
          value={key}
          onChange={(event) => setKey(event.target.value)}
        />
        {remove.isError ? <ErrorNotice>{remove.error.message}</ErrorNotice> : null}
        {remove.data ? (
          <p role="status" className="text-sm text-muted">
            Tombstone written to partition {remove.data.partition} at offset {remove.data.offset}.
          </p>
        ) : null}
        <div>
          <Button type="submit" variant="danger" disabled={remove.isPending || key === ""}>
            {remove.isPending ? "Deleting…" : "Delete key"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
