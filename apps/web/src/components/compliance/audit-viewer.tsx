"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useInput } from "@/lib/form-state";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { DataRow, DataTable } from "../ui/data-table";
import { SelectField, TextField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { formatTime } from "./erasure-stages";

const PAGE = 50;
const ACTOR_TYPES = [
  { value: "", label: "Anyone" },
  { value: "user", label: "Members" },
  { value: "apiKey", label: "API keys" },
  { value: "system", label: "The system (workers)" },
];

interface Filters {
  action?: string;
  actorType?: "user" | "apiKey" | "system";
  since?: string;
  beforeSeq?: number;
}

/**
 * The organization's audit trail, newest first: filter by action (or a prefix such as
 * "erasure."), by who acted and since when; each event names its actor. **Verify chain** re-walks
 * the hash chain on the server and shows the first broken link, if any.
 */
export function AuditViewer() {
  const trpc = useTRPC();
  const action = useInput("");
  const actorType = useInput("");
  const since = useInput("");
  const [filters, setFilters] = useState<Filters>({});
  const events = useQuery({
    ...trpc.audit.list.queryOptions({ ...filters, limit: PAGE }),
    placeholderData: keepPreviousData,
  });
  const verify = useQuery({ ...trpc.audit.verify.queryOptions({}), enabled: false });
  const apply = () => {
    const next: Filters = {};
    if (action.value.trim()) next.action = action.value.trim();
    if (actorType.value) next.actorType = actorType.value as Filters["actorType"];
    if (since.value) next.since = new Date(since.value).toISOString();
    setFilters(next);
  };
  return (
    <div className="flex flex-col gap-6">
      <Card
        title="Chain"
        description="Every event carries the hash of the one before it: an edited or removed row breaks the chain there."
      >
        <div className="flex flex-col gap-2">
          <div>
            <Button variant="secondary" disabled={verify.isFetching} onClick={() => void verify.refetch()}>
              {verify.isFetching ? "Verifying…" : "Verify chain"}
            </Button>
          </div>
          {verify.isError ? (
            <ErrorNotice>We could not verify the chain: {verify.error.message}</ErrorNotice>
          ) : null}
          {verify.data && !verify.isFetching ? (
            verify.data.ok ? (
              <p role="status" className="text-sm">
                The chain is intact: {verify.data.events} events verified.
              </p>
            ) : (
              <p role="alert" className="text-sm text-danger">
                The chain is broken at event #{verify.data.firstBrokenSeq}
                {verify.data.firstBroken
                  ? `: ${verify.data.firstBroken.action} of ${formatTime(verify.data.firstBroken.createdAt)} (${verify.data.firstBroken.targetType} ${verify.data.firstBroken.targetId ?? ""})`
                  : ""}
                . Every event from there on is unproven.
              </p>
            )
          ) : null}
        </div>
      </Card>
      <Card
        title="Events"
        description="Newest first. Keys and metadata only: record values are never recorded here."
      >
        <Form
          aria-label="Filter audit events"
          onSubmit={apply}
          className="mb-4 grid gap-3 sm:grid-cols-4 sm:items-end"
        >
          <TextField
            label="Action"
            placeholder="erasure."
            hint="An action, or a prefix ending in ."
            {...action.bind}
          />
          <SelectField label="Actor" options={ACTOR_TYPES} {...actorType.bind} />
          <TextField label="Since" type="datetime-local" {...since.bind} />
          <div>
            <Button type="submit">Filter</Button>
          </div>
        </Form>
        {events.isPending ? <StatusNotice>Loading audit events…</StatusNotice> : null}
        {events.isError ? (
          <ErrorNotice>We could not load audit events: {events.error.message}</ErrorNotice>
        ) : null}
        {events.data && events.data.events.length === 0 ? (
          <StatusNotice>No event matches.</StatusNotice>
        ) : null}
        {events.data && events.data.events.length > 0 ? (
          <>
            <DataTable label="Audit events" titles={["#", "When", "Action", "By", "Target"]} size="xs">
              {events.data.events.map((event) => (
                <DataRow key={event.seq} headClassName="tabular-nums font-normal" head={event.seq}>
                  <td className="py-2 pr-4 whitespace-nowrap">{formatTime(event.at, "short")}</td>
                  <td className="py-2 pr-4 font-mono">{event.action}</td>
                  <td className="py-2 pr-4">{event.actor.name}</td>
                  <td className="py-2 font-mono break-all">
                    {event.targetType} {event.targetId ?? ""}
                  </td>
                </DataRow>
              ))}
            </DataTable>
            {events.data.nextBeforeSeq !== null ? (
              <div className="mt-3">
                <Button
                  variant="secondary"
                  onClick={() =>
                    setFilters({ ...filters, beforeSeq: events.data.nextBeforeSeq ?? undefined })
                  }
                >
                  Older events
                </Button>
              </div>
            ) : null}
          </>
        ) : null}
      </Card>
    </div>
  );
}
