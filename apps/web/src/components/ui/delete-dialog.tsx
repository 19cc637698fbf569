"use client";

import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";
import { Button } from "./button";

/**
 * The console's one frame for deleting something: a danger trigger, a modal titled with the thing's
 * kind and name, what deleting it does (`consequences`), and the caller's confirm controls as
 * children, so every delete reads and behaves alike. The caller owns `open` to reset its own state
 * (a typed name, a refused mutation) when the dialog closes.
 */
export function DeleteDialog(props: {
  kind: string;
  name: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  consequences: ReactNode;
  children: ReactNode;
}) {
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Trigger asChild>
        <Button variant="danger">Delete {props.kind}</Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[90vh] w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 overflow-y-auto rounded-lg border border-line bg-surface p-5 text-ink shadow-lg">
          <Dialog.Title className="text-base font-semibold">
            Delete {props.kind} <span className="break-all font-mono">{props.name}</span>?
          </Dialog.Title>
          <Dialog.Description asChild>
            <div className="flex flex-col gap-2 text-sm text-muted">{props.consequences}</div>
          </Dialog.Description>
          {props.children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
