/**
 * Confluent's wire format: magic byte 0, the schema id as a 4-byte big-endian integer, then the
 * encoded payload (Protobuf payloads begin with the message-index path as zigzag varints).
 * Framing only: no schema library, so a browser may import it.
 */
export const MAGIC_BYTE = 0;
export const FRAME_HEADER_BYTES = 5;

export interface ConfluentFrame {
  schemaId: number;
  payload: Uint8Array;
}

/** The frame's schema id and payload, or null for bytes that are not framed. */
export function readConfluentFrame(bytes: Uint8Array | null | undefined): ConfluentFrame | null {
  if (!bytes || bytes.length < FRAME_HEADER_BYTES || bytes[0] !== MAGIC_BYTE) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { schemaId: view.getUint32(1), payload: bytes.subarray(FRAME_HEADER_BYTES) };
}

export function writeConfluentFrame(schemaId: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + payload.length);
  out[0] = MAGIC_BYTE;
  new DataView(out.buffer).setUint32(1, schemaId);
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/** Most message indexes a payload may claim (deeper nesting than any real schema). */
export const MAX_MESSAGE_INDEXES = 64;

function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let result = 0;
  let shift = 0;
  for (let i = at; i < bytes.length && shift < 35; i++) {
    const byte = bytes[i]!;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value: (result >>> 1) ^ -(result & 1), next: i + 1 };
    shift += 7;
  }
  throw new Error("truncated message-index varint");
}

/** The Protobuf message-index path and where the message bytes start ([0] is written as one 0). */
export function readMessageIndexes(payload: Uint8Array): { indexes: number[]; body: Uint8Array } {
  const count = readVarint(payload, 0);
  if (count.value === 0) return { indexes: [0], body: payload.subarray(count.next) };
  if (count.value < 0 || count.value > MAX_MESSAGE_INDEXES)
    throw new Error(`bad message-index count ${count.value}`);
  const indexes: number[] = [];
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    const index = readVarint(payload, at);
    indexes.push(index.value);
    at = index.next;
  }
  return { indexes, body: payload.subarray(at) };
}

function zigzag(value: number): number[] {
  let n = ((value << 1) ^ (value >> 31)) >>> 0;
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

export function writeMessageIndexes(indexes: readonly number[]): Uint8Array {
  if (indexes.length === 1 && indexes[0] === 0) return Uint8Array.of(0);
  return Uint8Array.from([...zigzag(indexes.length), ...indexes.flatMap(zigzag)]);
}
