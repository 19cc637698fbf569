/** A record header as the frames carry it: UTF-8 name, bytes or null. */
export interface FrameRecordHeader {
  key: string;
  value: Buffer | null;
}

/** A record decoded from a batch or stored frame (keys and values are Buffers: decoding is server-side). */
export interface FrameRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: readonly FrameRecordHeader[];
}

/** A record to write into a batch frame or a produce body; any Uint8Array will do. */
export interface EncodableFrameRecord {
  /** 0 when absent (a produce body: the log assigns offsets). */
  offset?: number;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: readonly { key: string; value: Uint8Array | null }[];
}

/** A record as a producer hands it over; null value = tombstone, an empty one is a value. */
export interface ProduceFrameRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp?: number;
  headers?: readonly FrameRecordHeader[];
}

/**
 * One record of a batch or stored frame as positions in `buf`, reused from record to record (copy
 * what you keep): what the readers hand a visitor, so that nothing is allocated per record.
 */
export interface RecordSpan {
  partition: number;
  buf: Uint8Array;
  offset: number;
  timestamp: number;
  /** -1 for a null key. */
  keyStart: number;
  keyEnd: number;
  /** -1 for a tombstone. */
  valueStart: number;
  valueEnd: number;
  headersStart: number;
  headerCount: number;
  /**
   * Where the record ends when it came in a stored frame (Kafka's varint-length headers), -1 when in
   * a batch frame (u16/i32-length headers).
   */
  storedEnd: number;
}

export function emptySpan(): RecordSpan {
  return {
    partition: -1,
    buf: new Uint8Array(0),
    offset: 0,
    timestamp: 0,
    keyStart: -1,
    keyEnd: -1,
    valueStart: -1,
    valueEnd: -1,
    headersStart: 0,
    headerCount: 0,
    storedEnd: -1,
  };
}

/**
 * Bytes of Node's Buffer when there is one (what the server-side callers and the client's text
 * decoding expect), else plain arrays: the frame code itself uses only Uint8Array methods.
 */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export function allocBytes(size: number): Uint8Array {
  return NodeBuffer ? NodeBuffer.allocUnsafe(size) : new Uint8Array(size);
}

/** `bytes` as a Buffer (a view, no copy) in Node; itself elsewhere. */
export function asBytes(bytes: Uint8Array): Uint8Array {
  return NodeBuffer && !(bytes instanceof NodeBuffer)
    ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : bytes;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = allocBytes(size);
  let pos = 0;
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}

type HeaderVisitor = (nameStart: number, nameEnd: number, valueStart: number, valueEnd: number) => void;

/**
 * The record `r` points at in `frame`, as an object: keys, values and header values as views of
 * `frame` or (`views` false) copies; `eachHeader` walks the headers in the layout of the frame the
 * record came in.
 */
export function recordOf(
  frame: Buffer,
  r: RecordSpan,
  views: boolean,
  eachHeader: (r: RecordSpan, visit: HeaderVisitor) => void,
): FrameRecord {
  const bytes = (start: number, end: number) => {
    if (start < 0) return null;
    const view = frame.subarray(start, end);
    return views ? view : Buffer.from(view);
  };
  const headers: FrameRecordHeader[] = [];
  if (r.headerCount > 0) {
    eachHeader(r, (nameStart, nameEnd, valueStart, valueEnd) => {
      headers.push({ key: frame.toString("utf8", nameStart, nameEnd), value: bytes(valueStart, valueEnd) });
    });
  }
  return {
    offset: r.offset,
    timestamp: r.timestamp,
    key: bytes(r.keyStart, r.keyEnd),
    value: bytes(r.valueStart, r.valueEnd),
    headers,
  };
}
