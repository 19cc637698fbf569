import { KafkaProtocolError } from "./errors";

/** Kafka caps unsigned varints used as lengths and tags at int32 (`ByteUtils.readUnsignedVarint`). */
const UVARINT_MAX_BYTES = 5;
const INT32_MAX = 0x7fff_ffff;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function truncated(need: number, have: number): KafkaProtocolError {
  return new KafkaProtocolError("TRUNCATED", `needs ${need} more bytes, ${have} remain`);
}

/**
 * A bounded cursor over one frame. Every read checks the remaining bytes first, so a hostile
 * length can never make us allocate or read past the frame.
 */
export class Reader {
  pos: number;
  readonly buf: Buffer;
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (this.end - this.pos < n) throw truncated(n, this.end - this.pos);
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  uint8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Unsigned LEB128 as in Kafka's compact lengths and tags: at most 5 bytes and at most int32. */
  uvarint(): number {
    let value = 0;
    for (let i = 0; i < UVARINT_MAX_BYTES; i++) {
      if (this.pos >= this.end) throw truncated(1, 0);
      const byte = this.buf[this.pos++] as number;
      value += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) {
        if (value > INT32_MAX) throw new KafkaProtocolError("BAD_VARINT", `unsigned varint ${value} > int32`);
        return value;
      }
    }
    throw new KafkaProtocolError("BAD_VARINT", "unsigned varint longer than 5 bytes");
  }

  /** A view of the next `length` bytes: no copy, so record sets stay slices of the frame. */
  slice(length: number): Buffer {
    this.need(length);
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  utf8(length: number): string {
    this.need(length);
    const out = this.buf.toString("utf8", this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  uuid(): string {
    const hex = this.slice(16).toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

export function uvarintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function invalid(what: string, value: unknown): KafkaProtocolError {
  return new KafkaProtocolError("INVALID_VALUE", `${what}: ${String(value)} out of range`);
}

function checkInt(value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(what, value);
  }
  return value;
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A writer into a buffer sized exactly by a prior sizing pass. Values are range-checked so a bad
 * handler result is an INVALID_VALUE, not a RangeError from deep inside Buffer.
 */
export class Writer {
  pos = 0;
  readonly buf: Buffer;
  /** `bytes` values of this size or more are referenced, not copied (see `parts`). */
  readonly #referenceFrom: number;
  readonly #parts: Buffer[] = [];
  /** Where the part of `buf` not yet in `#parts` starts. */
  #mark = 0;

  /**
   * `size` bytes of its own; with `referenceFrom`, a `bytes` value at least that long is kept by
   * reference between two slices of `buf` (which then holds only the rest: the caller sizes it so).
   */
  constructor(size: number, referenceFrom = Number.POSITIVE_INFINITY) {
    this.buf = Buffer.allocUnsafe(size);
    this.#referenceFrom = referenceFrom;
  }

  /** What was written, in order: slices of `buf` and the values referenced between them. */
  parts(): Buffer[] {
    return [...this.#parts, this.buf.subarray(this.#mark, this.pos)].filter((part) => part.length > 0);
  }

  int8(v: unknown): void {
    this.pos = this.buf.writeInt8(checkInt(v, -128, 127, "int8"), this.pos);
  }

  int16(v: unknown): void {
    this.pos = this.buf.writeInt16BE(checkInt(v, -32768, 32767, "int16"), this.pos);
  }

  uint16(v: unknown): void {
    this.pos = this.buf.writeUInt16BE(checkInt(v, 0, 0xffff, "uint16"), this.pos);
  }

  int32(v: unknown): void {
    this.pos = this.buf.writeInt32BE(checkInt(v, -(2 ** 31), INT32_MAX, "int32"), this.pos);
  }

  uint32(v: unknown): void {
    this.pos = this.buf.writeUInt32BE(checkInt(v, 0, 0xffff_ffff, "uint32"), this.pos);
  }

  int64(v: unknown): void {
    const big = typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : v;
    if (typeof big !== "bigint" || big < INT64_MIN || big > INT64_MAX) throw invalid("int64", v);
    this.pos = this.buf.writeBigInt64BE(big, this.pos);
  }

  float64(v: unknown): void {
    if (typeof v !== "number") throw invalid("float64", v);
    this.pos = this.buf.writeDoubleBE(v, this.pos);
  }

  bool(v: unknown): void {
    if (typeof v !== "boolean") throw invalid("bool", v);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  uvarint(v: number): void {
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }

  utf8(v: string): void {
    this.pos += this.buf.write(v, this.pos, "utf8");
  }

  bytes(v: Uint8Array): void {
    if (v.length >= this.#referenceFrom) {
      this.#parts.push(this.buf.subarray(this.#mark, this.pos));
      this.#parts.push(Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.length));
      this.#mark = this.pos;
      return;
    }
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  uuid(v: unknown): void {
    if (typeof v !== "string" || !UUID_PATTERN.test(v)) throw invalid("uuid", v);
    this.pos += this.buf.write(v.replaceAll("-", ""), this.pos, "hex");
  }
}
