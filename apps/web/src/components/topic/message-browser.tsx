"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { partitionNumbers } from "@/lib/partition-numbers";
import { type BrowsedRecord, downloadText, recordsAsCsv, recordsAsJsonLines } from "@/lib/record-export";
import { useTRPC } from "@/lib/trpc";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { SelectField, TextField } from "../ui/field";
import { Form } from "../ui/form";
import { ErrorNotice, StatusNotice } from "../ui/notice";
import { type SearchForm, type SearchInput, searchInput } from "./message-search-input";
import { type MessageOrder, MessageTable } from "./message-table";
import { useSchemaDecoding } from "./schema-decoding";

type StopReason = "end" | "limit" | "scanLimit";
interface Position {
  partition: number;
  offset: number;
}
interface Scan {
  /** The filters and bounds of the search shown, reused to scan further or follow. */
  input: SearchInput;
  positions: Position[];
  scanned: number;
  stoppedBy: StopReason;
  /** Each partition's log start when the search began (a read from the earliest starts there). */
  logStarts?: ReadonlyMap<number, number>;
}

/** Most rows a live tail keeps: the oldest go first, so the page stays quick however long it follows. */
const TAIL_KEEP = 5_000;
/** How soon a live tail asks again after an answer. */
const TAIL_POLL_MS = 1_000;

const EMPTY_FORM: SearchForm = {
  partition: "all",
  from: "earliest",
  offsets: {},
  fromTime: "",
  untilTime: "",
  key: "",
  value: "",
  headerKey: "",
  headerValue: "",
  jsonPath: "",
  jsonEquals: "",
  limit: 100,
  scanLimit: 10_000,
};

/** The filter fields, in the order they are laid out. */
const FILTER_FIELDS: {
  name: "key" | "value" | "headerKey" | "headerValue" | "jsonPath" | "jsonEquals";
  label: string;
  placeholder?: string;
}[] = [
  { name: "key", label: "Key contains" },
  { name: "value", label: "Value contains" },
  { name: "headerKey", label: "Header name" },
  { name: "headerValue", label: "Header value contains" },
  { name: "jsonPath", label: "JSON path", placeholder: "$.customer.id" },
  { name: "jsonEquals", label: "JSON path equals", placeholder: "any value" },
];

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
  const [form, setForm] = useState<SearchForm>(EMPTY_FORM);
  const [formError, setFormError] = useState<string | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [records, setRecords] = useState<BrowsedRecord[]>([]);
  const [scan, setScan] = useState<Scan | null>(null);
  const [order, setOrder] = useState<MessageOrder>("timestamp");
  const [pretty, setPretty] = useState(false);
  const [following, setFollowing] = useState(false);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const set = <K extends keyof SearchForm>(name: K, value: SearchForm[K]) =>
    setForm((current) => ({ ...current, [name]: value }));

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

  const submit = () => {
    const built = searchInput(props.topic, form);
    if ("error" in built) {
      setFormError(built.error);
      return false;
    }
    void search(built.input);
    return true;
  };
  const search = async (input: SearchInput) => {
    setFormError(null);
    setReadError(null);
    setFollowing(false);
    setScan(null);
    setRecords([]);
    setBusy(true);
    try {
      const answer = await run(input);
      setRecords(answer.records);
      setExpanded(new Set());
      setScan({
        input,
        ...answer,
        logStarts: new Map(answer.positions.map((p) => [p.partition, p.logStartOffset])),
      });
    } catch (error) {
      setReadError(
        `We could not read ${props.topic}: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      setBusy(false);
    }
  };

  const scanFurther = async () => {
    if (!scan) return;
    setBusy(true);
    setReadError(null);
    try {
      const answer = await run({ ...scan.input, start: { from: "offsets", offsets: scan.positions } });
      setRecords((current) => [...current, ...answer.records]);
      setScan({ ...scan, ...answer, scanned: scan.scanned + answer.scanned });
    } catch (error) {
      setReadError(`We could not read further: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(false);
    }
  };

  // The live tail: with the filters in the form when it starts, from where the search shown
  // stopped (or from the latest matches when none was run), ask again a moment after each answer
  // and append what is new. It starts with an empty table: what it shows is what it followed.
  const scanRef = useRef(scan);
  scanRef.current = scan;
  const formRef = useRef(form);
  formRef.current = form;
  useEffect(() => {
    if (!following) return;
    const typed = searchInput(props.topic, formRef.current);
    if ("error" in typed) {
      setFormError(typed.error);
      setFollowing(false);
      return;
    }
    setFormError(null);
    const base = typed.input;
    let positions = scanRef.current?.positions ?? null;
    let scanned = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setRecords([]);
    setExpanded(new Set());
    const poll = async () => {
      try {
        const start = positions
          ? { from: "offsets" as const, offsets: positions }
          : { from: "latest" as const };
        const answer = await run({ ...base, start });
        if (stopped) return;
        positions = answer.positions;
        scanned += answer.scanned;
        setRecords((rows) => [...rows, ...answer.records].slice(-TAIL_KEEP));
        setScan({ input: base, positions: answer.positions, scanned, stoppedBy: answer.stoppedBy });
        setReadError(null);
      } catch (error) {
        if (stopped) return;
        setReadError(
          `Following stopped answering: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!stopped) timer = setTimeout(poll, TAIL_POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [following, props.topic, run]);

  const onExpand = useCallback((id: string) => setExpanded((current) => new Set(current).add(id)), []);
  const exportAs = (kind: "jsonl" | "csv") =>
    kind === "jsonl"
      ? downloadText(recordsAsJsonLines(records), `${props.topic}-records.jsonl`, "application/x-ndjson")
      : downloadText(recordsAsCsv(records), `${props.topic}-records.csv`, "text/csv");
  const chosen = form.partition === "all" ? partitionNumbers(props.partitions) : [form.partition];

  return (
    <Card
      title="Messages"
      description="Search every partition at once, or one: by key, value, header or a JSON path, in a time range, from an offset per partition. The scan runs on the server and stops at the limit you set."
    >
      <Form aria-label="Browse messages" onSubmit={submit} className="flex flex-col gap-4">
        <div className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <SelectField
            label="Partitions"
            value={form.partition}
            onChange={(event) =>
              set("partition", event.target.value === "all" ? "all" : Number(event.target.value))
            }
          >
            <option value="all">All partitions</option>
            {partitionNumbers(props.partitions).map((index) => (
              <option key={index} value={index}>
                Partition {index}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Start from"
            value={form.from}
            onChange={(event) => set("from", event.target.value as SearchForm["from"])}
          >
            <option value="earliest">Earliest</option>
            <option value="latest">Latest</option>
            <option value="offset">Offset</option>
            <option value="timestamp">Time</option>
          </SelectField>
          <div className="min-w-[15rem]">
            <TextField
              label="From time (local)"
              type="datetime-local"
              step={1}
              disabled={form.from !== "timestamp"}
              value={form.fromTime}
              onChange={(event) => set("fromTime", event.target.value)}
            />
          </div>
          <div className="min-w-[15rem]">
            <TextField
              label="Until time (local)"
              type="datetime-local"
              step={1}
              value={form.untilTime}
              onChange={(event) => set("untilTime", event.target.value)}
            />
          </div>
        </div>
        {form.from === "offset" ? (
          <fieldset className="flex flex-col gap-2">
            <legend className="text-sm font-medium">Start offset per partition</legend>
            <div className="grid gap-3 sm:grid-cols-4 lg:grid-cols-8">
              {chosen.map((partition) => (
                <TextField
                  key={partition}
                  label={`Partition ${partition}`}
                  inputMode="numeric"
                  placeholder="0"
                  value={form.offsets[partition] ?? ""}
                  onChange={(event) => set("offsets", { ...form.offsets, [partition]: event.target.value })}
                />
              ))}
            </div>
          </fieldset>
        ) : null}
        <div className="grid items-end gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {FILTER_FIELDS.map(({ name, label, placeholder }) => (
            <TextField
              key={name}
              label={label}
              placeholder={placeholder}
              value={form[name]}
              onChange={(event) => set(name, event.target.value)}
            />
          ))}
          <SelectField
            label="Show up to"
            value={form.limit}
            onChange={(event) => set("limit", Number(event.target.value))}
          >
            {[50, 100, 200, 500].map((n) => (
              <option key={n} value={n}>
                {n} records
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Scan up to"
            value={form.scanLimit}
            onChange={(event) => set("scanLimit", Number(event.target.value))}
          >
            {[1_000, 10_000, 50_000].map((n) => (
              <option key={n} value={n}>
                {n.toLocaleString("en")} records
              </option>
            ))}
          </SelectField>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={busy}>
            Search messages
          </Button>
          <Button type="button" variant="secondary" onClick={() => setFollowing((on) => !on)}>
            {following ? "Stop following" : "Follow new records"}
          </Button>
        </div>
        {formError ? <ErrorNotice>{formError}</ErrorNotice> : null}
      </Form>
      <div className="mt-4 flex flex-col gap-3">
        {readError ? <ErrorNotice>{readError}</ErrorNotice> : null}
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
            <Button variant="secondary" disabled={busy} onClick={scanFurther}>
              Scan further
            </Button>
          </div>
        ) : null}
        {records.length > 0 ? (
          <MessageTable
            records={records}
            order={order}
            pretty={pretty}
            expanded={expanded}
            onExpand={onExpand}
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
