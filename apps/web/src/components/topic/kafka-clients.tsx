"use client";

import { useQuery } from "@tanstack/react-query";
import { shortDateTime } from "@/lib/date-time-formats";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Card } from "../ui/card";
import { DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";

const CLIENTS_REFRESH_MS = 15_000;

/** Which Kafka clients wrote and read this topic in the last day, as they named themselves. */
export function KafkaClients({ topic }: { topic: string }) {
  const trpc = useTRPC();
  const clients = useQuery({
    ...trpc.topics.kafkaClients.queryOptions({ topic }),
    refetchInterval: CLIENTS_REFRESH_MS,
  });
  return (
    <Card
      title="Kafka clients"
      description="Producers and consumers seen over the Kafka port in the last day: the client id of their requests and the software they reported."
    >
      {clients.isPending ? <StatusNotice>Loading Kafka clients…</StatusNotice> : null}
      {clients.isError ? (
        <ErrorNotice>We could not load the Kafka clients: {clients.error.message}</ErrorNotice>
      ) : null}
      {clients.data && clients.data.clients.length === 0 ? (
        <StatusNotice>No Kafka client produced to or consumed from this topic in the last day.</StatusNotice>
      ) : null}
      {clients.data && clients.data.clients.length > 0 ? (
        <DataTable label="Kafka clients" titles={["Client id", "Role", "Software", "Last seen"]}>
          {clients.data.clients.map((c) => (
            <tr
              key={`${c.role}|${c.clientId}|${c.softwareName}|${c.softwareVersion}`}
              className="border-b border-line last:border-0"
            >
              <th scope="row" className="py-2 pr-4 font-mono text-xs font-normal">
                {c.clientId || "(none)"}
              </th>
              <td className="py-2 pr-4">
                <Badge>{c.role}</Badge>
              </td>
              <td className="py-2 pr-4 text-xs">
                {c.softwareName ? `${c.softwareName} ${c.softwareVersion}` : "not reported"}
              </td>
              <td className="py-2 pr-4 text-xs whitespace-nowrap">
                {shortDateTime.format(new Date(c.lastSeenAt))}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </Card>
  );
}
