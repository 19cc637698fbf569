import type { Encoding, Envelope, EnvelopeJson as Json } from "@lastword/envelope";

/**
 * What the produce form turns into records: key and value in a chosen encoding, headers, an
 * explicit timestamp, and one record, one per line or one per JSON array element. Every refusal
 * is a sentence about the form's own fields, never an index into a request.
 */
export type { Encoding };
export type RecordsMode = "one" | "lines" | "json-array";

export interface ProduceDraft {
  key: string;
  keyEncoding: Encoding;
  value: string;
  valueEncoding: Encoding;
  mode: RecordsMode;
  tombstone: boolean;
  /** One `name: value` per line. */
  headers: string;
  /** A datetime-local value, or "" for the time of writing. */
  timestamp: string;
  partition: number | null;
}

export interface DraftRecord {
  key: Envelope | null;
  value: Envelope | null;
  headers?: { key: string; value: Envelope }[];
  timestamp?: number;
  partition?: number;
}

/** A blank form: text key and value, one record, by key hash, the time of writing. */
export const EMPTY_DRAFT: ProduceDraft = {
  key: "",
  keyEncoding: "string",
  value: "",
  valueEncoding: "string",
  mode: "one",
  tombstone: false,
  headers: "",
  timestamp: "",
  partition: null,
};

export type DraftField = "key" | "value" | "headers" | "timestamp";
export type BuiltDraft = { records: DraftRecord[] } | { field: DraftField; problem: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Encodes one text as `what` ("The key", "Line 2"); a string is the refusal. */
function encode(text: string, encoding: Encoding, what: string): Envelope | string {
  if (encoding === "string") return { type: "string", data: text };
  if (encoding === "base64") {
    const compact = text.replace(/\s+/g, "");
    return BASE64.test(compact) ? { type: "base64", data: compact } : `${what} is not valid base64.`;
  }
  try {
    return { type: "json", data: JSON.parse(text) as Json };
  } catch (error) {
    return `${what} is not valid JSON: ${reason(error)}`;
  }
}

function parseHeaders(text: string): DraftRecord["headers"] | string {
  const headers: NonNullable<DraftRecord["headers"]> = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).trim();
    if (name === "") return `Header line ${index + 1} needs a name before a colon, as in "source: billing".`;
    headers.push({ key: name, value: { type: "string", data: line.slice(colon + 1).trim() } });
  }
  return headers;
}

/** One record's own parts; a key or headers left out are the form's. */
interface RecordParts {
  value: Envelope | null;
  key?: Envelope | null;
  headers?: NonNullable<DraftRecord["headers"]>;
}

const RECORD_MEMBERS = new Set(["key", "value", "headers"]);

/** An array element that is a whole record: an object with a "value" and nothing but key, value, headers. */
function isRecordObject(element: unknown): element is { key?: Json; value: Json; headers?: Json } {
  if (typeof element !== "object" || element === null || Array.isArray(element)) return false;
  const members = Object.keys(element);
  return members.includes("value") && members.every((member) => RECORD_MEMBERS.has(member));
}

/**
 * A record object's parts: its key (text in the form's key format; other JSON as a JSON key; null
 * for none), its value (JSON; null is a tombstone) and its headers (an object of text values).
 */
function recordParts(
  element: { key?: Json; value: Json; headers?: Json },
  keyEncoding: Encoding,
  what: string,
): RecordParts | string {
  const parts: RecordParts = { value: element.value === null ? null : { type: "json", data: element.value } };
  if ("key" in element) {
    const key = element.key ?? null;
    if (key === null) parts.key = null;
    else if (typeof key === "string") {
      const encoded = encode(key, keyEncoding, `${what}'s key`);
      if (typeof encoded === "string") return encoded;
      parts.key = encoded;
    } else parts.key = { type: "json", data: key };
  }
  if (element.headers !== undefined) {
    const { headers } = element;
    if (typeof headers !== "object" || headers === null || Array.isArray(headers))
      return `${what}'s headers must be an object of names and text, as in {"source": "import"}.`;
    parts.headers = [];
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") return `${what}'s header "${name}" must be text.`;
      parts.headers.push({ key: name, value: { type: "string", data: value } });
    }
  }
  return parts;
}

/** The elements of a JSON array: whole records when every one is a record object, values otherwise. */
function arrayRecords(text: string, keyEncoding: Encoding): RecordParts[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `The records are not a valid JSON array: ${reason(error)}`;
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    return "Write the records as a JSON array with at least one element.";
  if (!parsed.every(isRecordObject))
    return parsed.map((element) => ({ value: { type: "json", data: element } }));
  const out: RecordParts[] = [];
  for (const [index, element] of parsed.entries()) {
    const parts = recordParts(element, keyEncoding, `Record ${index + 1} in the array`);
    if (typeof parts === "string") return parts;
    out.push(parts);
  }
  return out;
}

/** The records to send: one, one per non-empty line, or one per element of a JSON array. */
function values(draft: ProduceDraft): RecordParts[] | string {
  if (draft.tombstone) return [{ value: null }];
  if (draft.mode === "one") {
    const one = encode(draft.value, draft.valueEncoding, "The value");
    return typeof one === "string" ? one : [{ value: one }];
  }
  if (draft.mode === "json-array") return arrayRecords(draft.value, draft.keyEncoding);
  const lines = draft.value.split("\n").map((line, index) => ({ line, number: index + 1 }));
  const filled = lines.filter(({ line }) => line.trim() !== "");
  if (filled.length === 0) return "Write one record per line; every line is empty.";
  const out: RecordParts[] = [];
  for (const { line, number } of filled) {
    const one = encode(line, draft.valueEncoding, `Line ${number}`);
    if (typeof one === "string") return one;
    out.push({ value: one });
  }
  return out;
}

export function buildDraft(draft: ProduceDraft): BuiltDraft {
  let key: Envelope | null = null;
  if (draft.key !== "") {
    const encoded = encode(draft.key, draft.keyEncoding, "The key");
    if (typeof encoded === "string") return { field: "key", problem: encoded };
    key = encoded;
  }
  const headers = parseHeaders(draft.headers);
  if (typeof headers === "string") return { field: "headers", problem: headers };
  let timestamp: number | undefined;
  if (draft.timestamp !== "") {
    timestamp = new Date(draft.timestamp).getTime();
    if (!Number.isFinite(timestamp) || timestamp < 0) {
      return { field: "timestamp", problem: "The timestamp is not a date and time after 1970." };
    }
  }
  const sent = values(draft);
  if (typeof sent === "string") return { field: "value", problem: sent };
  return {
    records: sent.map((parts) => {
      const all = [...(headers ?? []), ...(parts.headers ?? [])];
      return {
        key: parts.key === undefined ? key : parts.key,
        value: parts.value,
        ...(all.length > 0 ? { headers: all } : {}),
        ...(timestamp === undefined ? {} : { timestamp }),
        ...(draft.partition === null ? {} : { partition: draft.partition }),
      };
    }),
  };
}

/** The API's refusal of a whole produce call, said about the form rather than "Record 0". */
export function produceRefusal(
  problem: { code?: string; detail?: string } | undefined,
  message: string,
  recordCount: number,
): string {
  const which = recordCount === 1 ? "This record" : "These records";
  if (problem?.code === "NULL_KEY_ON_COMPACTED_TOPIC") {
    return `${which} ${recordCount === 1 ? "has" : "have"} no key, and this topic is compacted: compaction keeps one value per key, so every record needs one. Fill in the key.`;
  }
  if (problem?.code === "PARTITION_NOT_FOUND") {
    return "The chosen partition does not exist (any more); pick another, or By key hash.";
  }
  return message;
}

/** "3 records written to partition 0 at offsets 4–6." and the like, for a success line. */
export function writtenSentence(results: readonly { partition: number; offset?: number }[]): string {
  const written = results.filter((r): r is { partition: number; offset: number } => r.offset !== undefined);
  const partitions = [...new Set(written.map((r) => r.partition))].sort((a, b) => a - b);
  const where = partitions.map((partition) => {
    const offsets = written.filter((r) => r.partition === partition).map((r) => r.offset);
    const low = Math.min(...offsets);
    const high = Math.max(...offsets);
    return `partition ${partition} at ${low === high ? `offset ${low}` : `offsets ${low}–${high}`}`;
  });
  return `${written.length} records written to ${where.join(", ")}.`;
}

/** A key, value or header as the produce form types it: its text and the format that reads it back. */
function typed(envelope: Envelope | null): { text: string; encoding: Encoding } {
  if (envelope === null || envelope.data === null) return { text: "", encoding: "string" };
  if (envelope.type === "json") return { text: JSON.stringify(envelope.data, null, 2), encoding: "json" };
  return { text: envelope.data, encoding: envelope.type === "base64" ? "base64" : "string" };
}

/**
 * A record read back as a draft ("produce again"): the same key, value, headers and partition, the
 * time of writing. Headers are text in the form: a JSON header is sent as its JSON text, a binary
 * one as its base64 text.
 */
export function draftFromRecord(record: {
  partition: number;
  key: Envelope | null;
  value: Envelope | null;
  headers: readonly { key: string; value: Envelope | null }[];
}): ProduceDraft {
  const key = typed(record.key);
  const value = typed(record.value);
  return {
    ...EMPTY_DRAFT,
    key: key.text,
    keyEncoding: key.encoding,
    value: value.text,
    valueEncoding: value.encoding,
    tombstone: record.value === null || record.value.data === null,
    headers: record.headers.map((h) => `${h.key}: ${typed(h.value).text}`).join("\n"),
    partition: record.partition,
  };
}
