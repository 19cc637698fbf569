"use client";

import { Card } from "../ui/card";
import { AddPartitions } from "./add-partitions-form";
import { DeleteTopicDialog } from "./delete-topic-dialog";

interface TopicAdminActionsProps {
  topic: string;
  partitions: number;
  compacted: boolean;
}

/** The changes to the topic itself (not its records): more partitions, or deleting it. */
export function TopicAdminActions(props: TopicAdminActionsProps) {
  return (
    <Card title="Topic actions">
      <div className="flex flex-col gap-6">
        <section aria-labelledby="topic-action-partitions" className="flex flex-col gap-2">
          <h3 id="topic-action-partitions" className="text-sm font-semibold">
            Partitions
          </h3>
          <AddPartitions {...props} />
        </section>
        <section aria-labelledby="topic-action-delete" className="flex flex-col gap-2">
          <h3 id="topic-action-delete" className="text-sm font-semibold">
            Delete
          </h3>
          <p className="text-sm text-muted">
            Removes the topic, its records and its consumer groups' offsets on it. You are asked to type its
            name first.
          </p>
          <div>
            <DeleteTopicDialog topic={props.topic} />
          </div>
        </section>
      </div>
    </Card>
  );
}
