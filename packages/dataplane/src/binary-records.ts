import type { ProduceRecord, RecordHeader } from "./record-codec";

/**
 * The produce body in binary, so a batch crosses web → worker without base64 or JSON parsing:
 *   u32 count, then per record: f64 timestamp (NaN = none), i32 key length (-1 = null) + bytes,
 *   i32 value length (-1 = null) + bytes, u32 header count, then per header: u32 key length + UTF-8,
 *   i32 value length (-1 = null) + bytes. Little-endian. Decoded keys and values are views into the body.
 */
export const BINARY_RECORDS_CONTENT_TYPE = "application/vnd.lastword.records";

export class BinaryRecordsError extends Error {}

function bytesLength(bytes: Buffer | null): number {
  return 4 + (bytes?.length ?? 0);
}

function encodedLength(records: readonly ProduceRecord[]): number {
  let size = 4;
  for (const record of records) {
    size += 8 + bytesLength(record.key) + bytesLength(record.value) + 4;
    for (const header of record.headers ?? [])
      size += 4 + Buffer.byteLength(header.key) + bytesLength(header.value);
  }
  return size;
}

export function encodeBinaryRecords(records: readonly ProduceRecord[]): Buffer {
  const out = Buffer.allocUnsafe(encodedLength(records));
  let at = out.writeUInt32LE(records.length, 0);
  const writeBytes = (bytes: Buffer | null) => {
    at = out.writeInt32LE(bytes === null ? -1 : bytes.length, at);
    if (bytes !== null) at += bytes.copy(out, at);
  };
  for (const record of records) {
    at = out.writeDoubleLE(record.timestamp ?? Number.NaN, at);
    writeBytes(record.key);
    writeBytes(record.value);
    const headers = record.headers ?? [];
    at = out.writeUInt32LE(headers.length, at);
    for (const header of headers) {
      const key = Buffer.from(header.key);
      at = out.writeUInt32LE(key.length, at);
      at += key.copy(out, at);
      writeBytes(header.value);
    }
  }
  return out;
}

export function decodeBinaryRecords(body: Buffer, maxRecords: number): ProduceRecord[] {
  const reader = new Reader(body);
  const count = reader.u32();
  if (count === 0 || count > maxRecords)
    throw new BinaryRecordsError(`record count ${count} not in 1..${maxRecords}`);
  const records: ProduceRecord[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const timestamp = reader.f64();
    const key = reader.bytes();
    const value = reader.bytes();
    const headers: RecordHeader[] = new Array(reader.u32());
    for (let h = 0; h < headers.length; h++) {
      headers[h] = { key: reader.utf8(), value: reader.bytes() };
    }
    const record: ProduceRecord = { key, value, headers };
    if (!Number.isNaN(timestamp)) record.timestamp = timestamp;
    records[i] = record;
  }
  if (!reader.done()) throw new BinaryRecordsError("trailing bytes after the last record");
  return records;
}

class Reader {
  #at = 0;
  readonly #body: Buffer;

  constructor(body: Buffer) {
    this.#body = body;
  }

  done(): boolean {
    return this.#at === this.#body.length;
  }

  u32(): number {
    this.#need(4);
    const value = this.#body.readUInt32LE(this.#at);
    this.#at += 4;
    return value;
  }

  f64(): number {
    this.#need(8);
    const value = this.#body.readDoubleLE(this.#at);
    this.#at += 8;
    if (!Number.isNaN(value) && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new BinaryRecordsError(`invalid timestamp ${value}`);
    }
    return value;
  }

  bytes(): Buffer | null {
    this.#need(4);
    const length = this.#body.readInt32LE(this.#at);
    this.#at += 4;
    if (length === -1) return null;
    if (length < 0) throw new BinaryRecordsError(`invalid length ${length}`);
    return this.#take(length);
  }

  utf8(): string {
    return this.#take(this.u32()).toString("utf8");
  }

  #take(length: number): Buffer {
    this.#need(length);
    const slice = this.#body.subarray(this.#at, this.#at + length);
    this.#at += length;
    return slice;
  }

  #need(length: number): void {
    if (this.#at + length > this.#body.length) throw new BinaryRecordsError("body ends inside a record");
  }
}
