import type { RouterOutputs } from "@lastword/api";
import { toCsv } from "@lastword/api/csv";
import type { Envelope } from "@lastword/envelope";

/** A record as the message browser shows it: one of records.search's answer. */
export type BrowsedRecord = RouterOutputs["records"]["search"]["records"][number];

/** One JSON object a line, envelopes as the API gives them, so a line reads back as it was produced. */
export function recordsAsJsonLines(records: readonly BrowsedRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + (records.length > 0 ? "\n" : "");
}

function cellText(envelope: Envelope | null): string {
  if (envelope === null || envelope.data === null) return "";
  return envelope.type === "json" ? JSON.stringify(envelope.data) : envelope.data;
}

const RECORD_COLUMNS = ["partition", "offset", "timestamp", "key", "value", "tombstone", "headers"] as const;

/**
 * CSV for a spreadsheet: one row a record, the time as ISO 8601, key and value as text (JSON
 * compact; a null key or tombstone empty, with `tombstone` saying which), headers as a JSON object.
 */
export function recordsAsCsv(records: readonly BrowsedRecord[]): string {
  // toCsv (@lastword/api/csv) defuses cells a spreadsheet would run as formulas: keys, values and
  // headers are the tenant's producers' text.
  return toCsv(
    RECORD_COLUMNS,
    records.map((r) => ({
      partition: r.partition,
      offset: r.offset,
      timestamp: new Date(r.timestamp).toISOString(),
      key: cellText(r.key),
      value: cellText(r.value),
      tombstone: r.value === null || r.value.data === null ? "true" : "false",
      headers: JSON.stringify(Object.fromEntries(r.headers.map((h) => [h.key, cellText(h.value)]))),
    })),
  );
}

/** Hands `text` to the browser as a file download. */
export function downloadText(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  // The download reads the URL after this task; revoking it at once can cancel the file.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
