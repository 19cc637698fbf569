"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { shortDateTime } from "@/lib/date-time-formats";
import { filled } from "@/lib/field-checks";
import { useFieldChecks } from "@/lib/form-state";
import { useTRPC } from "@/lib/trpc";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { DataRow, DataTable } from "../ui/data-table";
import { TextField } from "../ui/field";
import { FormCard } from "../ui/form-card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { EnvelopeView } from "./envelope-view";

/**
 * Exact key search through the worker's key index: the key's latest live value (keys.get) and every
 * version the log still holds (keys.versions), in the partition Kafka's partitioner gives the key.
 */
export function KeySearch({ topic }: { topic: string }) {
  const [typed, setTyped] = useState("");
  const [searched, setSearched] = useState<string | null>(null);
  const checks = useFieldChecks({ key: [typed, [filled("Type the key to find.")]] });
  const submit = checks.guard(() => setSearched(typed));
  return (
    <FormCard
      title="Find a key"
      description="An exact key (as text): its latest value and every version the log still holds, tombstones included."
      onSubmit={submit}
      className="flex flex-wrap items-end gap-4"
      after={
        <div className="mt-4">
          {searched === null ? (
            <StatusNotice>Type a key to see its value and its versions.</StatusNotice>
          ) : (
            <KeyResult topic={topic} keyText={searched} />
          )}
        </div>
      }
    >
      <div className="min-w-64 flex-1">
        <TextField
          label="Key"
          required
          error={checks.errors.key}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
      </div>
      <Button type="submit">Find key</Button>
    </FormCard>
  );
}

function KeyResult({ topic, keyText }: { topic: string; keyText: string }) {
  const trpc = useTRPC();
  const input = { topic, key: keyText, keyType: "string" as const, valueFormat: "auto" as const };
  const latest = useQuery({ ...trpc.keys.get.queryOptions(input), retry: false });
  const versions = useQuery(trpc.keys.versions.queryOptions(input));

  if (versions.isPending || latest.isPending) return <StatusNotice>Looking up “{keyText}”…</StatusNotice>;
  if (versions.isError) {
    return (
      <ErrorNotice>
        We could not look up “{keyText}”: {versions.error.message}
      </ErrorNotice>
    );
  }
  const found = versions.data;
  const absent = latest.isError && latest.error.data?.httpStatus === 404;
  if (latest.isError && !absent) {
    return (
      <ErrorNotice>
        We could not read the latest value of “{keyText}”: {latest.error.message}
      </ErrorNotice>
    );
  }
  return (
    <div className="flex flex-col gap-3">
      <p role="status" className="text-sm">
        {latest.data ? (
          <>
            “{keyText}” lives in partition {latest.data.partition}; its latest value is at offset{" "}
            {latest.data.offset}.
          </>
        ) : found.versions.length > 0 ? (
          <>
            “{keyText}” has no live value in partition {found.partition}: its latest version is a tombstone.
          </>
        ) : (
          <>
            Partition {found.partition}, where “{keyText}” would live, holds no version of it.
          </>
        )}
      </p>
      {found.versions.length > 0 ? (
        <DataTable label={`Versions of ${keyText}`} titles={["Offset", "Timestamp", "Value", "Segment"]}>
          {found.versions.map((version, i) => (
            <DataRow key={version.offset} top headClassName="font-mono tabular-nums" head={version.offset}>
              <td className="py-2 pr-4 text-xs whitespace-nowrap text-muted">
                {shortDateTime.format(new Date(version.timestamp))}
              </td>
              <td className="py-2 pr-4">
                <span className="flex flex-wrap items-center gap-2">
                  <EnvelopeView envelope={version.tombstone ? null : version.value} part="value" />
                  {i === found.versions.length - 1 ? <Badge tone="accent">Latest</Badge> : null}
                </span>
              </td>
              <td className="py-2 font-mono text-xs tabular-nums text-muted">{version.segment.baseOffset}</td>
            </DataRow>
          ))}
        </DataTable>
      ) : null}
    </div>
  );
}
