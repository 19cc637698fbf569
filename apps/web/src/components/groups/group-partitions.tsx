"use client";

import { humanDuration } from "@/lib/human-duration";
import { Button } from "../ui/button";
import { DataRow, DataTable } from "../ui/data-table";
import type { ListedGroup } from "./listed-group";

type TopicPositions = ListedGroup["topics"][number];
type Member = NonNullable<ListedGroup["membership"]>["members"][number];

const TITLES = [
  "Partition",
  "Committed offset",
  "Log end",
  "Lag (records)",
  "Lag (time)",
  "Member",
  "Client id",
  "Client host",
  "Reset",
];

/** The member whose assignment holds `topic`'s `partition`, if the group has one. */
function holder(group: ListedGroup, topic: string, partition: number): Member | undefined {
  return group.membership?.members.find((m) =>
    m.assignment?.some((a) => a.topic === topic && a.partitions.includes(partition)),
  );
}

function lagRecords(p: TopicPositions["partitions"][number]): string {
  if (p.offset === null) return "No position";
  if (p.lag === null) return "Unknown";
  return p.lag === 0 ? "Caught up" : `${p.lag.toLocaleString("en")} record${p.lag === 1 ? "" : "s"}`;
}

/**
 * A group's positions on one topic, a row a partition: the committed offset, the log end, the lag
 * in records and in time, the member that holds the partition (member, client id, host) and a
 * button that opens the reset form for that partition alone. Rows stack into cards on a phone.
 */
export function GroupPartitions(props: {
  group: ListedGroup;
  topic: TopicPositions;
  onReset: (topic: string, partition: number) => void;
}) {
  const { group, topic } = props;
  const cell = "py-2 pr-4 tabular-nums";
  return (
    <DataTable label={`Partitions of ${group.group} on ${topic.topic}`} titles={TITLES} srOnly={["Reset"]}>
      {topic.partitions.map((p) => {
        const member = holder(group, topic.topic, p.partition);
        return (
          <DataRow key={p.partition} head={p.partition}>
            <td className={`${cell} font-mono`}>{p.offset ?? "—"}</td>
            <td className={`${cell} font-mono`}>{p.logEndOffset ?? "—"}</td>
            <td className={cell}>{lagRecords(p)}</td>
            <td className={cell}>{p.lagMs === null ? "—" : humanDuration(p.lagMs)}</td>
            <td className="py-2 pr-4 font-mono text-xs break-all">{member?.memberId ?? "—"}</td>
            <td className="py-2 pr-4 font-mono text-xs">{member?.clientId ?? "—"}</td>
            <td className="py-2 pr-4 font-mono text-xs">{member?.clientHost ?? "—"}</td>
            <td className="py-2">
              <Button variant="secondary" onClick={() => props.onReset(topic.topic, p.partition)}>
                Reset partition {p.partition}
              </Button>
            </td>
          </DataRow>
        );
      })}
    </DataTable>
  );
}
