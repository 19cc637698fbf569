"use client";

import { describeRule } from "@lastword/api/access-rules";
import { useQuery } from "@tanstack/react-query";
import { useConsoleAccess } from "@/lib/console-access";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { DataTable } from "../ui/data-table";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { RowAction } from "../ui/row-action";

const dateFormat = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });
const KEY_COLUMNS = ["Name", "Key", "Scopes", "Rules", "Created by", "Created", "Last used", "Actions"];

export function ApiKeyList() {
  const trpc = useTRPC();
  const access = useConsoleAccess();
  const canRead = access.can("keys:read");
  const canRevoke = access.can("keys:write");
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions(), enabled: access.ready && canRead });

  if (access.ready && !canRead) {
    return (
      <StatusNotice>
        Your role ({access.role ?? "unknown"}) does not include API keys; owners, admins and developers manage
        them.
      </StatusNotice>
    );
  }
  if (keys.isPending) return <StatusNotice>Loading your API keys…</StatusNotice>;
  if (keys.isError) return <ErrorNotice>We could not load your API keys: {keys.error.message}</ErrorNotice>;
  if (keys.data.apiKeys.length === 0) {
    return <StatusNotice>This organization has no API keys yet. Create one above.</StatusNotice>;
  }
  return (
    <DataTable label="API keys" titles={KEY_COLUMNS} srOnly={["Actions"]} framed>
      {keys.data.apiKeys.map((key) => (
        <tr key={key.id} className="border-b border-line align-top last:border-0">
          <th scope="row" className="px-4 py-3 font-medium">
            {key.name ?? "Unnamed key"}
          </th>
          <td className="px-4 py-3 font-mono text-xs">{key.prefix ? `${key.prefix}…` : "—"}</td>
          <td className="px-4 py-3">
            <ul className="flex flex-wrap gap-1">
              {key.scopes.map((scope) => (
                <li key={scope}>
                  <Badge>{scope}</Badge>
                </li>
              ))}
            </ul>
          </td>
          <td className="px-4 py-3">
            {key.rules.length === 0 ? (
              <span className="text-muted">Every topic and group</span>
            ) : (
              <ul className="flex flex-col gap-1 font-mono text-xs">
                {key.rules.map((rule) => (
                  <li key={describeRule(rule)}>{describeRule(rule)}</li>
                ))}
              </ul>
            )}
          </td>
          <td className="px-4 py-3">
            {/* A key acts with at most its creator's role now; a creator who left takes their keys with them. */}
            {key.createdBy ? (
              <>
                <span>{key.createdBy.email ?? key.createdBy.userId}</span>{" "}
                <span className="text-muted">({key.createdBy.role ?? "no longer a member"})</span>
              </>
            ) : (
              <span className="text-muted">Unknown</span>
            )}
          </td>
          <td className="px-4 py-3 whitespace-nowrap text-muted">
            {dateFormat.format(new Date(key.createdAt))}
          </td>
          <td className="px-4 py-3 whitespace-nowrap text-muted">
            {/* Kept to the minute by the API and the Kafka listener, so "just now" is within a minute. */}
            {key.lastUsedAt ? dateFormat.format(new Date(key.lastUsedAt)) : "Never"}
          </td>
          <td className="px-4 py-3 text-right">
            {key.revoked ? (
              <Badge>Revoked</Badge>
            ) : canRevoke ? (
              // Two steps, so one stray click cannot break a production program.
              <RowAction
                verb="Revoke"
                gerund="Revoking"
                target={key.name ?? "this key"}
                mutation={trpc.apiKeys.revoke.mutationOptions()}
                variables={{ id: key.id }}
                refresh={[trpc.apiKeys.list.queryKey()]}
              />
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
