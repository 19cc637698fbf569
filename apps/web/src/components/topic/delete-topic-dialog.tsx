"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { DeleteDialog } from "../ui/delete-dialog";
import { TextField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice } from "../ui/notice";
import { SubmitButton } from "../ui/submit-button";

/**
 * Deleting a topic cannot be undone, and it breaks whoever reads it: the dialog says what happens
 * to its consumers and asks for the topic's name typed out, so it is never one stray click.
 */
export function DeleteTopicDialog({ topic }: { topic: string }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const change = (next: boolean) => {
    setOpen(next);
    if (!next) setTyped("");
  };
  return (
    <DeleteDialog
      kind="topic"
      name={topic}
      open={open}
      onOpenChange={change}
      consequences={
        <>
          <p>Its records and segment files are removed from every worker. This cannot be undone.</p>
          <p>
            Its consumers: every consumer group's committed offsets on this topic are removed. Kafka and REST
            consumers still reading it get unknown-topic errors (Kafka{" "}
            <code className="font-mono">UNKNOWN_TOPIC_OR_PARTITION</code>, REST 404) and must be restarted or
            pointed at another topic; a topic created later with the same name starts empty.
          </p>
        </>
      }
    >
      <DeleteTopicForm topic={topic} typed={typed} onType={setTyped} onCancel={() => change(false)} />
    </DeleteDialog>
  );
}

function DeleteTopicForm(props: {
  topic: string;
  typed: string;
  onType: (value: string) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const remove = useMutation(
    trpc.topics.delete.mutationOptions({
      onSuccess: async () => {
        // The list must not show the topic on arrival; the page's own query would only 404.
        await queryClient.invalidateQueries({ queryKey: trpc.topics.list.pathKey() });
        router.push("/topics");
      },
    }),
  );
  const matches = props.typed === props.topic;
  const submit = () => {
    if (matches) remove.mutate({ topic: props.topic });
  };
  return (
    <Form aria-label="Confirm topic deletion" onSubmit={submit} className="flex flex-col gap-4">
      <TextField
        label={`Type ${props.topic} to confirm`}
        autoComplete="off"
        spellCheck={false}
        value={props.typed}
        onChange={(event) => props.onType(event.target.value)}
      />
      {remove.isError ? <ErrorNotice>{remove.error.message}</ErrorNotice> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={props.onCancel}>
          Cancel
        </Button>
        <SubmitButton
          label="Delete this topic"
          pendingLabel="Deleting…"
          pending={remove.isPending || remove.isSuccess}
          disabled={!matches}
          variant="danger"
        />
      </div>
    </Form>
  );
}
