import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { type ErasureDetail, formatTime } from "./erasure-stages";

/**
 * The groups that had not read past an erasure tombstone when it was proven gone, as the expiry
 * proof recorded them: they never saw the delete and may still hold the erased value, so the
 * request keeps naming them after it closes.
 */
export function MissedGroups({ groups }: { groups: ErasureDetail["missedGroups"] }) {
  return (
    <Card
      title="Consumer groups that missed a tombstone"
      description="These groups had not read past the erasure tombstone when it was removed from the log. They never saw the delete and may still hold the erased value: erase it from their stores too."
    >
      <DataTable
        label="Consumer groups that missed a tombstone"
        titles={["Group", "Topic / partition", "Tombstone offset", "Committed offset then", "Tombstone gone"]}
      >
        {groups.map((g) => (
          <tr
            key={`${g.group}-${g.topic}-${g.partition}-${g.tombstoneOffset}`}
            className="border-b border-line last:border-0"
          >
            <th scope="row" className="py-2 pr-4 font-mono font-normal">
              {g.group}
            </th>
            <td className="py-2 pr-4 font-mono whitespace-nowrap">
              {g.topic} / {g.partition}
            </td>
            <td className="py-2 pr-4 tabular-nums">{g.tombstoneOffset}</td>
            <td className="py-2 pr-4 tabular-nums">{g.committedOffset}</td>
            <td className="py-2 whitespace-nowrap">{g.expiredAt ? formatTime(g.expiredAt, "short") : "—"}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}
