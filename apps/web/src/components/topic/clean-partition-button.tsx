"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";

/**
 * Asks the owning worker for a pass now (topics.requestClean, admin). On an uncleanable partition
 * the same call is the retry: it clears the hold, and the partition leaves the uncleanable state
 * once the pass succeeds (the next worker report says so).
 */
export function CleanPartitionButton(props: {
  topic: string;
  partition: number;
  verb: "Retry" | "Clean now";
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const clean = useMutation(
    trpc.topics.requestClean.mutationOptions({
      onSuccess: () =>
        Promise.all(
          [trpc.topics.get, trpc.topics.segments, trpc.topics.cleanerRuns].map((procedure) =>
            queryClient.invalidateQueries({ queryKey: procedure.pathKey() }),
          ),
        ),
    }),
  );
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button
        variant="secondary"
        className="px-2 py-1 text-xs"
        disabled={clean.isPending}
        aria-label={`${props.verb}: a cleaner pass on partition ${props.partition}`}
        onClick={() => clean.mutate({ topic: props.topic, partition: props.partition })}
      >
        {clean.isPending ? "Asking…" : props.verb}
      </Button>
      {/* Announced only: the visible answer is the partition's status and bar changing, and text
          appearing here would widen the table's column under a live page. */}
      <span role="status" className="sr-only">
        {clean.isSuccess ? `Pass requested for partition ${props.partition}.` : ""}
      </span>
      {clean.isError ? (
        <span role="alert" className="text-xs text-danger">
          {clean.error.message}
        </span>
      ) : null}
    </span>
  );
}
