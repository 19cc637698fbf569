"use client";

import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import { describeGap, withGaps } from "@/lib/record-gaps";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { EnvelopeView } from "./envelope-view";

type StartFrom = "earliest" | "latest" | "offset";

interface ReadRequest {
  partition: number;
  offset: number;
  limit: number;
  valueFormat: "auto" | "json";
}

export interface PartitionBounds {
  logStartOffset: number;
  logEndOffset: number;
}

const PAGE_SIZES = [20, 50, 100] as const;
const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

/** Where a read starts: the log start, the last `limit` records, or an offset the user typed. */
function startOffset(from: StartFrom, typed: number, limit: number, bounds: PartitionBounds): number {
  if (from === "earliest") return bounds.logStartOffset;
  if (from === "latest") return Math.max(bounds.logStartOffset, bounds.logEndOffset - limit);
  return typed;
}

export function MessageBrowser(props: {
  topic: string;
  partitions: number;
  boundsOf: (partition: number) => PartitionBounds;
}) {
  const [partition, setPartition] = useState(0);
  const [from, setFrom] = useState<StartFrom>("earliest");
  const [typedOffset, setTypedOffset] = useState("0");
  const [limit, setLimit] = useState<number>(PAGE_SIZES[0]);
  const [prettyJson, setPrettyJson] = useState(false);
  const [request, setRequest] = useState<ReadRequest | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const offset = startOffset(from, Number(typedOffset), limit, props.boundsOf(partition));
    setRequest({ partition, offset, limit, valueFormat: prettyJson ? "json" : "auto" });
  };

  return (
    <Card
      title="Messages"
      description="Read a partition from an offset. Offsets the cleaner removed are shown as gaps."
    >
      <form aria-label="Browse messages" onSubmit={submit} className="grid items-end gap-4 sm:grid-cols-5">
        <SelectField
          label="Partition"
          value={partition}
          onChange={(event) => setPartition(Number(event.target.value))}
        >
          {partitionNumbers(props.partitions).map((index) => (
            <option key={index} value={index}>
              {index}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Start from"
          value={from}
          onChange={(event) => setFrom(event.target.value as StartFrom)}
        >
          <option value="earliest">Earliest</option>
          <option value="latest">Latest</option>
          <option value="offset">Offset</option>
        </SelectField>
        <TextField
          label="Offset"
          type="number"
          min={0}
          disabled={from !== "offset"}
          value={typedOffset}
          onChange={(event) => setTypedOffset(event.target.value)}
        />
        <SelectField
          label="Page size"
          value={limit}
          onChange={(event) => setLimit(Number(event.target.value))}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </SelectField>
        <Button type="submit">Read messages</Button>
        <label className="flex items-center gap-2 text-sm sm:col-span-5">
          <input
            type="checkbox"
            checked={prettyJson}
            onChange={(event) => setPrettyJson(event.target.checked)}
            className="size-4 accent-accent"
          />
          Show JSON values pretty-printed
        </label>
      </form>
      <div className="mt-4">
        {request ? (
          <RecordPage
            topic={props.topic}
            request={request}
            onNext={(offset) => setRequest({ ...request, offset })}
          />
        ) : (
          <StatusNotice>Choose a partition and where to start, then read its messages.</StatusNotice>
        )}
      </div>
    </Card>
  );
}

function RecordPage(props: { topic: string; request: ReadRequest; onNext: (offset: number) => void }) {
  const trpc = useTRPC();
  const { request } = props;
  const read = useQuery(trpc.records.read.queryOptions({ topic: props.topic, ...request }));

  if (read.isPending) return <StatusNotice>Reading partition {request.partition}…</StatusNotice>;
  if (read.isError)
    return (
      <ErrorNotice>
        We could not read partition {request.partition}: {read.error.message}
      </ErrorNotice>
    );
  const { records, nextOffset, logStartOffset, logEndOffset } = read.data;
  if (records.length === 0) {
    return (
      <StatusNotice>
        Partition {request.partition} has no messages from offset {request.offset} on (its log ends at offset{" "}
        {logEndOffset}).
      </StatusNotice>
    );
  }
  const rows = withGaps(records, request.offset, logStartOffset);
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-muted">
        Offsets {records[0]?.offset}–{records.at(-1)?.offset} of partition {request.partition}; the log holds
        offsets {logStartOffset}–{Math.max(logStartOffset, logEndOffset - 1)}.
      </p>
      <div className="overflow-x-auto">
        <table aria-label={`Messages in partition ${request.partition}`} className="w-full text-left text-sm">
          <thead className="border-b border-line text-xs uppercase tracking-wide text-muted">
            <tr>
              {["Offset", "Timestamp", "Key", "Value", "Headers"].map((title) => (
                <th key={title} scope="col" className="py-2 pr-4 font-medium">
                  {title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) =>
              row.kind === "gap" ? (
                <tr key={`gap-${row.fromOffset}`} className="border-b border-line">
                  <td colSpan={5} className="bg-canvas py-2 text-center text-xs text-muted italic">
                    {describeGap(row)}
                  </td>
                </tr>
              ) : (
                <tr key={row.record.offset} className="border-b border-line align-top last:border-0">
                  <th scope="row" className="py-2 pr-4 font-mono tabular-nums">
                    {row.record.offset}
                  </th>
                  <td className="py-2 pr-4 text-xs whitespace-nowrap text-muted">
                    {timeFormat.format(new Date(row.record.timestamp))}
                  </td>
                  <td className="py-2 pr-4">
                    <EnvelopeView envelope={row.record.key} part="key" />
                  </td>
                  <td className="py-2 pr-4">
                    <EnvelopeView envelope={row.record.value} part="value" />
                  </td>
                  <td className="py-2 tabular-nums text-muted">{row.record.headers.length}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      {nextOffset < logEndOffset ? (
        <div>
          <Button variant="secondary" onClick={() => props.onNext(nextOffset)}>
            Read the next page
          </Button>
        </div>
      ) : null}
    </div>
  );
}
