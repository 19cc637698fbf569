import type { FetchedRecord } from "@lastword/dataplane";
import { JSONPath } from "jsonpath-plus";
import { AppError } from "../errors/app-error";

/** What a record must match to be returned by a search; every given part must hold. */
export interface RecordFilterSpec {
  until?: number | undefined;
  key?: string | undefined;
  value?: string | undefined;
  header?: { key: string; value?: string | undefined } | undefined;
  jsonPath?: { path: string; equals?: string | undefined } | undefined;
}

export type RecordPredicate = (record: FetchedRecord) => boolean;

/** Case-insensitive substring over the bytes read as UTF-8 (bytes that are not UTF-8 never match text). */
function contains(bytes: Buffer | null, needle: string): boolean {
  if (bytes === null) return false;
  return bytes.toString("utf8").toLowerCase().includes(needle);
}

function parseJson(bytes: Buffer | null): { value: unknown } | null {
  if (bytes === null) return null;
  try {
    return { value: JSON.parse(bytes.toString("utf8")) };
  } catch {
    return null;
  }
}

/** How a selected value compares with the text a person typed: strings as they are, the rest as JSON. */
function asComparable(selected: unknown): string {
  return typeof selected === "string" ? selected : JSON.stringify(selected);
}

function jsonPathMatcher(spec: { path: string; equals?: string | undefined }): RecordPredicate {
  const path = spec.path.trim();
  if (!path.startsWith("$")) {
    throw new AppError(
      "INVALID_INPUT",
      `jsonPath "${spec.path}" must start at the root, "$" (e.g. $.customer.id).`,
      {
        details: { path: "jsonPath.path" },
      },
    );
  }
  // Filter scripts ([?(...)]) are off: a search runs on the server, over every record it scans.
  const select = (json: unknown): unknown[] =>
    JSONPath({ path, json: json as object, eval: false, wrap: true }) as unknown[];
  try {
    select({});
  } catch (error) {
    throw new AppError(
      "INVALID_INPUT",
      `jsonPath "${spec.path}" is not one we can run: ${error instanceof Error ? error.message : String(error)}`,
      { details: { path: "jsonPath.path" } },
    );
  }
  return (record) => {
    const parsed = parseJson(record.value);
    if (parsed === null || parsed.value === null || typeof parsed.value !== "object") return false;
    const selected = select(parsed.value);
    if (spec.equals === undefined) return selected.length > 0;
    return selected.some((item) => asComparable(item) === spec.equals);
  };
}

/** One predicate for the whole spec, checked (a bad JSONPath refused) before anything is read. */
export function recordFilter(spec: RecordFilterSpec): RecordPredicate {
  const checks: RecordPredicate[] = [];
  const { until, key, value, header, jsonPath } = spec;
  if (until !== undefined) checks.push((r) => r.timestamp <= until);
  if (key !== undefined) {
    const needle = key.toLowerCase();
    checks.push((r) => contains(r.key, needle));
  }
  if (value !== undefined) {
    const needle = value.toLowerCase();
    checks.push((r) => contains(r.value, needle));
  }
  if (header !== undefined) {
    const needle = header.value?.toLowerCase();
    checks.push((r) =>
      r.headers.some((h) => h.key === header.key && (needle === undefined || contains(h.value, needle))),
    );
  }
  if (jsonPath !== undefined) checks.push(jsonPathMatcher(jsonPath));
  return (record) => checks.every((check) => check(record));
}
