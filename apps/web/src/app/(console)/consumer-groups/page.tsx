import type { Metadata } from "next";
import { GroupList } from "@/components/groups/group-list";

export const metadata: Metadata = { title: "Consumer groups" };

export default function ConsumerGroupsPage() {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Consumer groups</h1>
        <p className="mt-1 text-sm text-muted">
          Every group of this organization, Kafka consumers and REST clients alike: a Kafka group&apos;s
          state, members and the partitions each holds, where each partition stands, how far behind it is in
          records and in time, and whether it lags past a topic's delete.retention.ms (then it may have missed
          tombstones).
        </p>
      </div>
      <GroupList />
    </div>
  );
}
