"use client";

import { MAX_PARTITIONS_PER_TOPIC, PARTITIONS_FROZEN_EXPLANATION } from "@lastword/api/topic-rules";
import { useId, useState } from "react";
import { useRefreshingMutation } from "@/lib/refreshing-mutation";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { TextField } from "../ui/field";
import { Form } from "../ui/form";
import { MutationFooter } from "../ui/form-footer";

interface AddPartitionsProps {
  topic: string;
  partitions: number;
  compacted: boolean;
}

/**
 * Raises a delete-policy topic's partition count. On a compacted topic the button is there but
 * disabled, with the API's own reason beside it: the refusal is read before anyone clicks.
 */
export function AddPartitions(props: AddPartitionsProps) {
  return props.compacted ? <FrozenPartitions /> : <AddPartitionsForm {...props} />;
}

function FrozenPartitions() {
  const reasonId = useId();
  return (
    <div className="flex flex-col gap-2">
      <div>
        <Button variant="secondary" disabled aria-describedby={reasonId}>
          Add partitions
        </Button>
      </div>
      <p id={reasonId} className="text-sm text-muted">
        <strong className="font-medium text-ink">A compacted topic keeps its partition count.</strong>{" "}
        {PARTITIONS_FROZEN_EXPLANATION}
      </p>
    </div>
  );
}

/** Why a typed count cannot be sent, in the form's words; null when it can. */
function countProblem(text: string, current: number): string | null {
  const count = Number(text);
  if (text.trim() === "" || !Number.isInteger(count))
    return "Enter the new partition count as a whole number.";
  if (count <= current) {
    return `The topic has ${current} ${current === 1 ? "partition" : "partitions"}: the new count must be larger.`;
  }
  if (count > MAX_PARTITIONS_PER_TOPIC) return `A topic has at most ${MAX_PARTITIONS_PER_TOPIC} partitions.`;
  return null;
}

function AddPartitionsForm({ topic, partitions }: AddPartitionsProps) {
  const trpc = useTRPC();
  const [count, setCount] = useState(String(partitions + 1));
  const [problem, setProblem] = useState<string | null>(null);
  const add = useRefreshingMutation(trpc.topics.addPartitions.mutationOptions(), {
    refresh: [trpc.topics.get.queryKey({ topic }), trpc.topics.list.pathKey()],
  });
  const submit = () => {
    const found = countProblem(count, partitions);
    setProblem(found);
    if (found === null) add.mutate({ topic, count: Number(count), force: false });
    else add.reset();
    return found === null;
  };
  return (
    <Form aria-label="Add partitions" onSubmit={submit} className="flex flex-col gap-3">
      <TextField
        label="New partition count"
        type="number"
        inputMode="numeric"
        min={partitions + 1}
        max={MAX_PARTITIONS_PER_TOPIC}
        value={count}
        onChange={(event) => setCount(event.target.value)}
        error={problem ?? undefined}
        hint="The total after the change. Records already written stay in their partitions; from now on a key may land in a different partition than before."
      />
      <MutationFooter
        mutation={add}
        done={
          add.data && !add.isError && problem === null ? (
            <>The topic now has {add.data.topic.partitions} partitions.</>
          ) : null
        }
        label="Add partitions"
        pendingLabel="Adding…"
        variant="secondary"
      />
    </Form>
  );
}
