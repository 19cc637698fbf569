"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { DeleteDialog } from "../ui/delete-dialog";
import { ErrorNotice } from "../ui/notice";

/** Deleting a group forgets its positions: the dialog says so, and shows the API's refusal in place. */
export function DeleteGroupDialog({ group }: { group: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation(trpc.consumerGroups.delete.mutationOptions());
  const change = (next: boolean) => {
    setOpen(next);
    if (!next) remove.reset();
  };
  const confirm = async () => {
    try {
      await remove.mutateAsync({ group });
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: trpc.consumerGroups.list.queryKey() });
    } catch {
      // Shown in the dialog from remove.error.
    }
  };
  return (
    <DeleteDialog
      kind="group"
      name={group}
      open={open}
      onOpenChange={change}
      consequences={
        <p>
          Its committed offsets on every topic are removed; a consumer that joins under this name later starts
          from its own reset policy (earliest or latest). A group that is still active is refused, as Kafka
          refuses it.
        </p>
      }
    >
      {remove.error ? <ErrorNotice>{remove.error.message}</ErrorNotice> : null}
      <div className="flex justify-end gap-3">
        <Button variant="secondary" onClick={() => change(false)}>
          Cancel
        </Button>
        <Button variant="danger" disabled={remove.isPending} onClick={() => void confirm()}>
          Delete {group}
        </Button>
      </div>
    </DeleteDialog>
  );
}
