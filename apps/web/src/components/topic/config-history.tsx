"use client";

import { useQuery } from "@tanstack/react-query";
import { mediumDateTime } from "@/lib/date-time-formats";
import { useTRPC } from "@/lib/trpc";
import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { configValueOrDefault } from "./config-change-summary";
import type { ConfigEntry } from "./config-entry";

/** Who changed which config of the topic when, newest first: the audit trail's config events. */
export function ConfigHistory({ topic, entries }: { topic: string; entries: readonly ConfigEntry[] }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.topics.configHistory.queryOptions({ topic }));
  return (
    <Card
      title="Config history"
      description="Every change, from the console, the REST API or a Kafka client, as the audit trail recorded it."
    >
      {history.isPending ? (
        <StatusNotice>Loading the config history…</StatusNotice>
      ) : history.isError ? (
        <ErrorNotice>We could not load the config history: {history.error.message}</ErrorNotice>
      ) : history.data.entries.length === 0 ? (
        <StatusNotice>No config changes are recorded for this topic.</StatusNotice>
      ) : (
        <DataTable label="Config history" titles={["When", "Who", "Change"]}>
          {history.data.entries.map((entry) => (
            <tr key={entry.seq} className="border-b border-line align-top last:border-0">
              <td className="py-2 pr-4 whitespace-nowrap text-muted">
                <time dateTime={entry.at}>{mediumDateTime.format(new Date(entry.at))}</time>
              </td>
              <td className="py-2 pr-4">
                {entry.actor.name ?? `${entry.actor.type} ${entry.actor.id ?? ""}`}
              </td>
              <td className="py-2">
                {entry.action === "created" ? <p className="text-xs text-muted">Created with</p> : null}
                {entry.changes.length === 0 ? (
                  <p className="text-xs text-muted">default configs</p>
                ) : (
                  <ul className="font-mono text-xs">
                    {entry.changes.map((change) => (
                      <li key={change.name}>
                        {change.name}: {configValueOrDefault(entries, change.name, change.before)} →{" "}
                        {configValueOrDefault(entries, change.name, change.after)}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
