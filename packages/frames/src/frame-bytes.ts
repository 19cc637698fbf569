/**
 * Big-endian reads and writes on plain Uint8Arrays for the frame codecs, so that what the REST client
 * runs needs no Node Buffer. The f64 goes through one 8-byte scratch (no DataView per buffer).
 */
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function u16(buf: Uint8Array, pos: number): number {
  return (buf[pos]! << 8) | buf[pos + 1]!;
}

export function i32(buf: Uint8Array, pos: number): number {
  return (buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
}

export function u32(buf: Uint8Array, pos: number): number {
  return i32(buf, pos) >>> 0;
}

export function f64(buf: Uint8Array, pos: number): number {
  if (LITTLE_ENDIAN_HOST) for (let i = 0; i < 8; i++) F64_BYTES[7 - i] = buf[pos + i]!;
  else for (let i = 0; i < 8; i++) F64_BYTES[i] = buf[pos + i]!;
  return F64[0]!;
}

/** Writers answer the position after what they wrote. */
export function putU8(buf: Uint8Array, value: number, pos: number): number {
  buf[pos] = value;
  return pos + 1;
}

export function putU16(buf: Uint8Array, value: number, pos: number): number {
  buf[pos] = value >>> 8;
  buf[pos + 1] = value;
  return pos + 2;
}

export function putI32(buf: Uint8Array, value: number, pos: number): number {
  buf[pos] = value >>> 24;
  buf[pos + 1] = value >>> 16;
  buf[pos + 2] = value >>> 8;
  buf[pos + 3] = value;
  return pos + 4;
}

export function putF64(buf: Uint8Array, value: number, pos: number): number {
  F64[0] = value;
  if (LITTLE_ENDIAN_HOST) for (let i = 0; i < 8; i++) buf[pos + i] = F64_BYTES[7 - i]!;
  else buf.set(F64_BYTES, pos);
  return pos + 8;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a header name (rare enough that a fresh array costs nothing that matters). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
