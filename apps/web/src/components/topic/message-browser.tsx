"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import { describeGap, withGaps } from "@/lib/record-gaps";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { ColumnHeads } from "../ui/column-heads";
import { SelectField, TextField } from "../ui/field";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { EnvelopeView } from "./envelope-view";

type StartFrom = "earliest" | "latest" | "offset" | "timestamp";

interface ReadRequest {
  partition: number;
  offset: number;
  limit: number;
  valueFormat: "auto" | "json";
  /** How the start offset was found, when it was not typed (shown above the page). */
  note: string | null;
}

interface PartitionOffsets {
  earliest: number;
  latest: number;
  timestampOffset: number | null;
}

const PAGE_SIZES = [20, 50, 100] as const;
const timeFormat = new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "medium" });

/**
 * Where a read starts, from the partition's live offsets (records.offsets): the log start, the last
 * `limit` records, or the first record at or after a time (the log end when none is that recent).
 */
function startFrom(
  from: Exclude<StartFrom, "offset">,
  limit: number,
  offsets: PartitionOffsets,
  at: number,
): { offset: number; note: string } {
  if (from === "earliest") return { offset: offsets.earliest, note: "From the log start." };
  if (from === "latest") {
    return { offset: Math.max(offsets.earliest, offsets.latest - limit), note: `The last ${limit} offsets.` };
  }
  const when = timeFormat.format(new Date(at));
  if (offsets.timestampOffset === null) {
    return {
      offset: offsets.latest,
      note: `No message is stamped ${when} or later; reading from the log end.`,
    };
  }
  return { offset: offsets.timestampOffset, note: `From the first message stamped ${when} or later.` };
}

export function MessageBrowser(props: { topic: string; partitions: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [partition, setPartition] = useState(0);
  const [from, setFrom] = useState<StartFrom>("earliest");
  const [typedOffset, setTypedOffset] = useState("0");
  const [typedTime, setTypedTime] = useState("");
  const [limit, setLimit] = useState<number>(PAGE_SIZES[0]);
  const [prettyJson, setPrettyJson] = useState(false);
  const [request, setRequest] = useState<ReadRequest | null>(null);
  const [startError, setStartError] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setStartError(null);
    const valueFormat = prettyJson ? "json" : "auto";
    if (from === "offset") {
      setRequest({ partition, offset: Number(typedOffset), limit, valueFormat, note: null });
      return;
    }
    // datetime-local is the member's local time; Date parses it as such.
    const at = from === "timestamp" ? new Date(typedTime).getTime() : 0;
    if (from === "timestamp" && !Number.isFinite(at)) {
      setStartError("Enter the date and time to start from.");
      return;
    }
    try {
      const offsets = await queryClient.fetchQuery({
        ...trpc.records.offsets.queryOptions({
          topic: props.topic,
          partition,
          ...(from === "timestamp" ? { timestamp: Math.max(0, at) } : {}),
        }),
        staleTime: 0,
      });
      setRequest({ partition, limit, valueFormat, ...startFrom(from, limit, offsets, at) });
    } catch (error) {
      setStartError(
        `We could not find where to start in partition ${partition}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };

  return (
    <Card
      title="Messages"
      description="Read a partition from an offset, a time, its start or its end. Offsets the cleaner removed are shown as gaps."
    >
      <form aria-label="Browse messages" onSubmit={submit} className="grid items-end gap-4 sm:grid-cols-6">
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
          <option value="timestamp">Time</option>
        </SelectField>
        <TextField
          label="Offset"
          type="number"
          min={0}
          disabled={from !== "offset"}
          value={typedOffset}
          onChange={(event) => setTypedOffset(event.target.value)}
        />
        <TextField
          label="Time (local)"
          type="datetime-local"
          step={1}
          disabled={from !== "timestamp"}
          required={from === "timestamp"}
          value={typedTime}
          onChange={(event) => setTypedTime(event.target.value)}
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
        <label className="flex items-center gap-2 text-sm sm:col-span-6">
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
        {startError ? <ErrorNotice>{startError}</ErrorNotice> : null}
        {request ? (
          <RecordPage
            topic={props.topic}
            request={request}
            onNext={(offset) => setRequest({ ...request, offset, note: null })}
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
        {request.note ? `${request.note} ` : ""}Partition {request.partition} has no messages from offset{" "}
        {request.offset} on (its log ends at offset {logEndOffset}).
      </StatusNotice>
    );
  }
  const rows = withGaps(records, request.offset, logStartOffset);
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-muted">
        {request.note ? `${request.note} ` : ""}
        Offsets {records[0]?.offset}–{records.at(-1)?.offset} of partition {request.partition}; the log holds
        offsets {logStartOffset}–{Math.max(logStartOffset, logEndOffset - 1)}.
      </p>
      <div className="overflow-x-auto">
        <table aria-label={`Messages in partition ${request.partition}`} className="w-full text-left text-sm">
          <ColumnHeads titles={["Offset", "Timestamp", "Key", "Value", "Headers"]} />
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
