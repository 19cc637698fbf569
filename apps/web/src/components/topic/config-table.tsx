import { humanConfigValue } from "@/lib/config-units";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { ConfigEditForm } from "./config-edit-form";
import type { ConfigEntry } from "./config-entry";
import { ConfigHistory } from "./config-history";
import { ErasureFix } from "./erasure-fix";

/** The Configs tab: the erasure deadline check, the configs with their edit form, their history. */
export function ConfigTable({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  return (
    <>
      <ErasureFix topic={topic} entries={entries} />
      <ConfigCard topic={topic} entries={entries} />
      <ConfigHistory topic={topic} entries={entries} />
    </>
  );
}

function ConfigCard({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  return (
    <Card title="Configs" description="Configs set on this topic, and the defaults it uses for the rest.">
      <DataTable label="Configs" titles={["Name", "Value", "Default", "Source"]}>
        {entries.map((entry) => (
          <DataRow
            key={entry.name}
            top
            headClassName="font-mono text-xs font-medium"
            head={<span title={entry.doc}>{entry.name}</span>}
          >
            <td className="py-2 pr-4 text-xs">
              <ConfigValue name={entry.name} value={entry.value} />
            </td>
            <td className="py-2 pr-4 text-xs text-muted">
              <ConfigValue name={entry.name} value={entry.default} />
            </td>
            <td className="py-2">
              <Badge tone={entry.source === "set" ? "accent" : "neutral"}>{entry.source}</Badge>
            </td>
          </DataRow>
        ))}
      </DataTable>
      <ConfigEditForm topic={topic} entries={entries} />
    </Card>
  );
}

/** The human form first (7 d, 1.0 GiB), the exact Kafka value beside it for copying. */
function ConfigValue({ name, value }: { name: string; value: string }) {
  const human = humanConfigValue(name, value);
  if (human === null) return <span className="font-mono">{value}</span>;
  return (
    <span>
      {human} <span className="font-mono text-muted">({value})</span>
    </span>
  );
}
