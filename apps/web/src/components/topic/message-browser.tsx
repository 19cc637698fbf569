"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { hasSearchParams, readSearchParams, writeSearchParams } from "@/lib/message-search-url";
import { type BrowsedRecord, downloadText, recordsAsCsv, recordsAsJsonLines } from "@/lib/record-export";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { MessageSearchForm } from "./message-search-form";
import { EMPTY_SEARCH_FORM, type SearchForm, type SearchInput, searchInput } from "./message-search-input";
import { type MessageOrder, MessageTable } from "./message-table";
import { RecordDrawer } from "./record-drawer";
import { useSchemaDecoding } from "./schema-decoding";
import { type Progress, type Scan, useMessageResults } from "./use-message-results";

/** A scan that returns every record it reads, so a missing offset is one the log no longer has. */
function unfiltered(input: SearchInput): boolean {
  return !(
    input.key ||
    input.value ||
    input.header ||
    input.jsonPath ||
    input.filter ||
    input.until !== undefined
  );
}

const count = (n: number, one: string) => `${n.toLocaleString("en")} ${one}${n === 1 ? "" : "s"}`;
const megabytes = (bytes: number) =>
  `${(bytes / 1_048_576).toLocaleString("en", { maximumFractionDigits: 1 })} MB`;

function describeProgress(progress: Progress): string {
  return `Scanned ${count(progress.scanned, "record")} (${megabytes(progress.bytes)}), ${count(progress.matches, "match")}`;
}

function describeScan(scan: Scan, shown: number): string {
  const scanned = `Scanned ${count(scan.scanned, "record")}`;
  const found = `${shown.toLocaleString("en")} shown`;
  switch (scan.stoppedBy) {
    case "end":
      return `${scanned} to the end of the log; ${found}.`;
    case "limit":
      return `${scanned}; ${found}, the most one search returns. Scan further for more.`;
    case "stopped":
      return `${scanned}, then stopped; ${found}. Scan further to go on from there.`;
    case "byteLimit":
      return `${scanned} (${megabytes(scan.bytes)}), the most one search reads; ${found}. Scan further to read on.`;
    default:
      return `${scanned}, the scan limit; ${found}. Scan further to read on.`;
  }
}

/** The search in the page's URL (with the tab), so it can be linked and a reload runs it again. */
function keepInUrl(form: SearchForm) {
  const url = new URL(window.location.href);
  writeSearchParams(url.searchParams, form, EMPTY_SEARCH_FORM);
  url.searchParams.set("tab", "messages");
  window.history.replaceState(null, "", `${url.pathname}${url.search}${url.hash}`);
}

export function MessageBrowser(props: {
  topic: string;
  partitions: number;
  /** "Produce again" from the record drawer; absent when the member may not write. */
  onProduceAgain?: ((record: BrowsedRecord) => void) | undefined;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The URL's search, when it has one, is the form the browser opens with (read on the client only).
  const [form, setForm] = useState<SearchForm>(EMPTY_SEARCH_FORM);
  const [formError, setFormError] = useState<string | null>(null);
  const [order, setOrder] = useState<MessageOrder>("timestamp");
  const [pretty, setPretty] = useState(false);
  const [opened, setOpened] = useState<BrowsedRecord | null>(null);

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
  const { records, scan, busy, following, progress } = results;

  /** Runs `typed` (the form as typed) and keeps it in the URL; false after showing what to fix. */
  const runForm = (typed: SearchForm) => {
    const built = searchInput(props.topic, typed);
    setFormError("error" in built ? built.error : null);
    if ("error" in built) return false;
    keepInUrl(typed);
    void results.search(built.input, typed.scanLimit);
    return true;
  };
  const submit = () => runForm(form);

  // When the tab opens: the linked search, or the latest records of every partition.
  const opening = useRef(runForm);
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const linked = hasSearchParams(params) ? readSearchParams(params, EMPTY_SEARCH_FORM) : EMPTY_SEARCH_FORM;
    setForm(linked);
    opening.current(linked);
  }, []);

  // The live tail follows the filters in the form when it starts.
  const toggleFollow = () => {
    if (following) return results.stopFollowing();
    const built = searchInput(props.topic, form);
    setFormError("error" in built ? built.error : null);
    if (!("error" in built)) results.follow(built.input);
  };
  const exportAs = (kind: "jsonl" | "csv") =>
    kind === "jsonl"
      ? downloadText(recordsAsJsonLines(records), `${props.topic}-records.jsonl`, "application/x-ndjson")
      : downloadText(recordsAsCsv(records), `${props.topic}-records.csv`, "text/csv");
  const produceAgain = props.onProduceAgain
    ? (record: BrowsedRecord) => {
        setOpened(null);
        props.onProduceAgain?.(record);
      }
    : undefined;

  return (
    <Card
      title="Messages"
      description="The latest records of every partition, or a search: by key, value, header, JSON path, a regular expression or a JavaScript filter, in a time range, from an offset per partition. The scan runs on the server, shows its progress as it reads, and stops at the limits you set or when you stop it. The search is kept in the address bar: copy it to share it."
    >
      <MessageSearchForm
        form={form}
        onChange={setForm}
        partitions={props.partitions}
        busy={busy}
        following={following}
        formError={formError}
        onSubmit={submit}
        onStop={results.stop}
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
        {busy && progress ? (
          <p role="status" aria-label="Scan progress" className="text-sm text-muted">
            {results.stopping ? "Stopping… " : "Searching… "}
            {describeProgress(progress)}
          </p>
        ) : scan ? (
          <p role="status" aria-label="Scan progress" className="text-sm text-muted">
            {following ? "Following new records. " : ""}
            {describeScan(scan, records.length)}
          </p>
        ) : null}
        {scan && scan.stoppedBy !== "end" && !following && !busy ? (
          <div>
            <Button variant="secondary" onClick={results.scanFurther}>
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
            onOpen={setOpened}
            follow={following}
            showGaps={scan !== null && !busy && unfiltered(scan.input)}
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
      <RecordDrawer record={opened} onClose={() => setOpened(null)} onProduceAgain={produceAgain} />
    </Card>
  );
}
