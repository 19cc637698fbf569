import type { Envelope, Problem } from "@lastword/api";
import {
  base64Of,
  envelopeOf,
  FRAMES_CONTENT_TYPE,
  FrameReader,
  headersOf,
  type RawRecord,
  textOf,
} from "./binary-frames";
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

function isFrames(response: Response): boolean {
  return response.headers.get("content-type")?.startsWith(FRAMES_CONTENT_TYPE) ?? false;
}

/** Feeds a binary stream's body to a frame reader; answers the offsets it ended with. */
async function readFrames(response: Response, visit: (record: RawRecord) => void): Promise<PartitionOffsets> {
  if (!response.body) throw new Error("stream response has no body");
  const reader = response.body.getReader();
  const frames = new FrameReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return frames.finish();
      frames.push(value, visit);
    }
  } finally {
    // Leaving early cancels the body, so the server stops reading the log for us.
    await reader.cancel().catch(() => undefined);
  }
}

function streamRecordOf(r: RawRecord): StreamRecord {
  return {
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.keyStart < 0 ? null : envelopeOf(r.buf, r.keyStart, r.keyEnd),
    value: r.valueStart < 0 ? null : envelopeOf(r.buf, r.valueStart, r.valueEnd),
    headers: r.headerCount ? headersOf(r) : [],
  };
}

async function* binaryRecords(response: Response): AsyncGenerator<StreamRecord, PartitionOffsets, undefined> {
  if (!response.body) throw new Error("stream response has no body");
  const reader = response.body.getReader();
  const frames = new FrameReader();
  const records: StreamRecord[] = [];
  const keep = (r: RawRecord) => {
    records.push(streamRecordOf(r));
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return frames.finish();
      frames.push(value, keep);
      // One chunk's records at a time: the body is read only as fast as the caller iterates.
      yield* records.splice(0);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function* ndjsonRecords(response: Response): AsyncGenerator<StreamRecord, PartitionOffsets, undefined> {
  for await (const line of ndjson(response)) {
    if ("error" in line) throw new LastwordApiError(line.error, null);
    if ("end" in line) return Object.fromEntries(line.offsets.map((o) => [o.partition, o.offset]));
    yield line;
  }
  throw new Error("the stream ended before its offsets line (connection lost?)");
}

/**
 * The records of one stream (binary frames or NDJSON, as the response says), then its consistent
 * offsets (returned). Throws if the server reported a failure mid-stream or the body ended
 * without its offsets.
 */
export function readStream(response: Response): AsyncGenerator<StreamRecord, PartitionOffsets, undefined> {
  return isFrames(response) ? binaryRecords(response) : ndjsonRecords(response);
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

/** Applies one binary record straight to a state map: no record object, only the key text and value envelope. */
function applyRaw(state: Map<string, Envelope>, r: RawRecord): void {
  if (r.keyStart < 0) return;
  const { buf } = r;
  const key = textOf(buf, r.keyStart, r.keyEnd) ?? base64Of(buf, r.keyStart, r.keyEnd);
  if (r.valueStart < 0) state.delete(key);
  else state.set(key, envelopeOf(buf, r.valueStart, r.valueEnd));
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
  const response = await open(path, { from: "earliest" });
  if (isFrames(response)) {
    const offsets = await readFrames(response, (r) => applyRaw(state, r));
    return { state, offsets };
  }
  const stream = readStream(response);
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
