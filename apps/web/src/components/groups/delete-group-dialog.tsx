"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
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
    <Dialog.Root open={open} onOpenChange={change}>
      <Dialog.Trigger asChild>
        <Button variant="danger">Delete group</Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 rounded-lg border border-line bg-surface p-5 text-ink shadow-lg">
          <Dialog.Title className="text-base font-semibold">
            Delete group <span className="break-all font-mono">{group}</span>?
          </Dialog.Title>
          <Dialog.Description className="text-sm text-muted">
            Its committed offsets on every topic are removed; a consumer that joins under this name later
            starts from its own reset policy (earliest or latest). A group that is still active is refused, as
            Kafka refuses it.
          </Dialog.Description>
          {remove.error ? <ErrorNotice>{remove.error.message}</ErrorNotice> : null}
          <div className="flex justify-end gap-3">
            <Dialog.Close asChild>
              <Button variant="secondary">Cancel</Button>
            </Dialog.Close>
            <Button variant="danger" disabled={remove.isPending} onClick={() => void confirm()}>
              Delete {group}
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
