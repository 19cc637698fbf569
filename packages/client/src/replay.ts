import type { Envelope, Problem } from "@lastword/api";
import { LastwordApiError } from "./problem-error";

/** One line of a replay or snapshot stream. */
export interface StreamRecord {
  partition: number;
  offset: number;
  timestamp: number;
  key: Envelope | null;
  /** null: a tombstone. */
  value: Envelope | null;
  headers: { key: string; value: Envelope | null }[];
}

/** Per partition, the next offset to read: the position a state was built up to. */
export type PartitionOffsets = Record<number, number>;

export interface ReplayedState {
  /** Key (its text, or base64 for keys that are not UTF-8) → latest value envelope. */
  state: Map<string, Envelope>;
  offsets: PartitionOffsets;
}

/** Opens a streaming route (`/topics/{topic}/records/stream` or `/snapshot`) and answers its body. */
export type OpenStream = (
  path: string,
  query: Record<string, string | undefined>,
  signal?: AbortSignal,
) => Promise<Response>;

type Line =
  | StreamRecord
  | { end: true; offsets: { partition: number; offset: number }[] }
  | { error: Problem };

async function* ndjson(response: Response): AsyncGenerator<Line> {
  if (!response.body) throw new Error("stream response has no body");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value;
      let newline = rest.indexOf("\n");
      let start = 0;
      while (newline !== -1) {
        if (newline > start) yield JSON.parse(rest.slice(start, newline)) as Line;
        start = newline + 1;
        newline = rest.indexOf("\n", start);
      }
      rest = rest.slice(start);
    }
    if (rest.trim()) yield JSON.parse(rest) as Line;
  } finally {
    // Leaving early cancels the body, so the server stops reading the log for us.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The records of one stream, then its consistent offsets (returned). Throws if the server reported
 * a failure mid-stream or the body ended without its offsets line.
 */
export async function* readStream(
  response: Response,
): AsyncGenerator<StreamRecord, PartitionOffsets, undefined> {
  for await (const line of ndjson(response)) {
    if ("error" in line) throw new LastwordApiError(line.error, null);
    if ("end" in line) return Object.fromEntries(line.offsets.map((o) => [o.partition, o.offset]));
    yield line;
  }
  throw new Error("the stream ended before its offsets line (connection lost?)");
}

/** The map key of a record key envelope. */
export function stateKey(key: Envelope | null): string | null {
  if (key === null || key.data === null) return null;
  return typeof key.data === "string" ? key.data : JSON.stringify(key.data);
}

/** Applies one record to a state map: a value sets the key, a tombstone removes it. */
export function applyRecord(state: Map<string, Envelope>, record: StreamRecord): void {
  const key = stateKey(record.key);
  if (key === null) return;
  if (record.value === null || record.value.data === null) state.delete(key);
  else state.set(key, record.value);
}

export async function replayToMap(
  open: OpenStream,
  topic: string,
  options: { via?: "snapshot" | "replay" } = {},
): Promise<ReplayedState> {
  const path =
    options.via === "replay"
      ? `/topics/${encodeURIComponent(topic)}/records/stream`
      : `/topics/${encodeURIComponent(topic)}/snapshot`;
  const state = new Map<string, Envelope>();
  const stream = readStream(await open(path, { from: "earliest" }));
  for (;;) {
    const next = await stream.next();
    if (next.done) return { state, offsets: next.value };
    applyRecord(state, next.value);
  }
}

export interface TailOptions {
  /** How long each long poll waits on the server for a new record (default 10 s, max 30 s). */
  waitMs?: number;
  signal?: AbortSignal;
}

/**
 * Follows a topic from `offsets` (e.g. what replayToMap returned): long-polls the replay route
 * from the last position, yields every new record, and never ends until the loop is left or the
 * signal aborts.
 */
export async function* tail(
  open: OpenStream,
  topic: string,
  offsets: PartitionOffsets,
  options: TailOptions = {},
): AsyncGenerator<StreamRecord> {
  const position: PartitionOffsets = { ...offsets };
  const path = `/topics/${encodeURIComponent(topic)}/records/stream`;
  while (!options.signal?.aborted) {
    const query = {
      from: "latest",
      offsets: Object.entries(position)
        .map(([p, o]) => `${p}:${o}`)
        .join(","),
      waitMs: String(options.waitMs ?? 10_000),
    };
    let response: Response;
    try {
      response = await open(path, query.offsets ? query : { ...query, offsets: undefined }, options.signal);
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
    const stream = readStream(response);
    try {
      for (;;) {
        const next = await stream.next();
        if (next.done) {
          Object.assign(position, next.value);
          break;
        }
        yield next.value;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    } finally {
      // Leaving mid-poll must cancel that poll's body, or its connection stays held open.
      await stream.return(position);
    }
  }
}
