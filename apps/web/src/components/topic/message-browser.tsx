"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { downloadText, recordsAsCsv, recordsAsJsonLines } from "@/lib/record-export";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { EMPTY_SEARCH_FORM, MessageSearchForm } from "./message-search-form";
import { type SearchForm, type SearchInput, searchInput } from "./message-search-input";
import { type MessageOrder, MessageTable } from "./message-table";
import { useSchemaDecoding } from "./schema-decoding";
import { type Scan, useMessageResults } from "./use-message-results";

/** A scan that returns every record it reads, so a missing offset is one the log no longer has. */
function unfiltered(input: SearchInput): boolean {
  return !(input.key || input.value || input.header || input.jsonPath || input.until !== undefined);
}

function describeScan(scan: Scan, shown: number): string {
  const scanned = `Scanned ${scan.scanned.toLocaleString("en")} record${scan.scanned === 1 ? "" : "s"}`;
  const found = `${shown.toLocaleString("en")} shown`;
  if (scan.stoppedBy === "end") return `${scanned} to the end of the log; ${found}.`;
  if (scan.stoppedBy === "limit")
    return `${scanned}; ${found}, the most one search returns. Scan further for more.`;
  return `${scanned}, the scan limit; ${found}. Scan further to read on.`;
}

export function MessageBrowser(props: { topic: string; partitions: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<SearchForm>(EMPTY_SEARCH_FORM);
  const [formError, setFormError] = useState<string | null>(null);
  const [order, setOrder] = useState<MessageOrder>("timestamp");
  const [pretty, setPretty] = useState(false);

  // Confluent-framed keys and values come back decoded (and filters match decoded fields) for members who may read schemas.
  const decode = useSchemaDecoding();
  const run = useCallback(
    (input: SearchInput) =>
      queryClient.fetchQuery({
        ...trpc.records.search.queryOptions({ ...input, decode }),
        staleTime: 0,
        retry: false,
      }),
    [queryClient, trpc, decode],
  );
  const results = useMessageResults(props.topic, run);
  const { records, scan, busy, following } = results;

  /** The form as a search input, or null after showing what to fix. */
  const typed = (): SearchInput | null => {
    const built = searchInput(props.topic, form);
    setFormError("error" in built ? built.error : null);
    return "error" in built ? null : built.input;
  };
  const submit = () => {
    const input = typed();
    if (input) void results.search(input);
    return input !== null;
  };
  // The live tail follows the filters in the form when it starts.
  const toggleFollow = () => {
    if (following) return results.stopFollowing();
    const input = typed();
    if (input) results.follow(input);
  };
  const exportAs = (kind: "jsonl" | "csv") =>
    kind === "jsonl"
      ? downloadText(recordsAsJsonLines(records), `${props.topic}-records.jsonl`, "application/x-ndjson")
      : downloadText(recordsAsCsv(records), `${props.topic}-records.csv`, "text/csv");

  return (
    <Card
      title="Messages"
      description="Search every partition at once, or one: by key, value, header or a JSON path, in a time range, from an offset per partition. The scan runs on the server and stops at the limit you set."
    >
      <MessageSearchForm
        form={form}
        onChange={setForm}
        partitions={props.partitions}
        busy={results.busy}
        following={results.following}
        formError={formError}
        onSubmit={submit}
        onToggleFollow={toggleFollow}
      />
      <div className="mt-4 flex flex-col gap-3">
        {results.readError ? <ErrorNotice>{results.readError}</ErrorNotice> : null}
        <div className="flex flex-wrap items-center gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              checked={pretty}
              onChange={(event) => setPretty(event.target.checked)}
              className="size-4 accent-accent"
            />
            Pretty-print JSON
          </label>
          <label className="flex items-center gap-2">
            Order by
            <select
              aria-label="Order by"
              value={order}
              onChange={(event) => setOrder(event.target.value as MessageOrder)}
              className="rounded-md border border-line bg-surface px-2 py-1"
            >
              <option value="timestamp">Timestamp</option>
              <option value="offset">Offset</option>
            </select>
          </label>
          <Button variant="secondary" disabled={records.length === 0} onClick={() => exportAs("jsonl")}>
            Export JSON lines
          </Button>
          <Button variant="secondary" disabled={records.length === 0} onClick={() => exportAs("csv")}>
            Export CSV
          </Button>
        </div>
        {scan ? (
          <p role="status" aria-label="Scan progress" className="text-sm text-muted">
            {following ? "Following new records. " : ""}
            {describeScan(scan, records.length)}
          </p>
        ) : null}
        {scan && scan.stoppedBy !== "end" && !following ? (
          <div>
            <Button variant="secondary" disabled={busy} onClick={results.scanFurther}>
              Scan further
            </Button>
          </div>
        ) : null}
        {records.length > 0 ? (
          <MessageTable
            records={records}
            order={order}
            pretty={pretty}
            expanded={results.expanded}
            onExpand={results.expand}
            follow={following}
            showGaps={scan !== null && unfiltered(scan.input)}
            starts={scan?.input.start?.from === "earliest" ? scan.logStarts : undefined}
          />
        ) : busy ? (
          <StatusNotice>Searching {props.topic}…</StatusNotice>
        ) : scan ? (
          <StatusNotice>No message matches in what was scanned.</StatusNotice>
        ) : following ? (
          <StatusNotice>Waiting for new records…</StatusNotice>
        ) : (
          <StatusNotice>Search to see messages, or follow new ones as they arrive.</StatusNotice>
        )}
      </div>
    </Card>
  );
}
