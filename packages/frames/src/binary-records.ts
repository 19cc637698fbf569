import { FrameFormatError } from "./frame-kinds";
import type { ProduceFrameRecord as ProduceRecord, FrameRecordHeader as RecordHeader } from "./frame-records";

/**
 * The data plane's produce body in binary (`BINARY_RECORDS_CONTENT_TYPE`), so a batch crosses
 * web → worker without base64 or JSON parsing:
 *   u32 count, then per record: f64 timestamp (NaN = none), i32 key length (-1 = null) + bytes,
 *   i32 value length (-1 = null) + bytes, u32 header count, then per header: u32 key length + UTF-8,
 *   i32 value length (-1 = null) + bytes. Little-endian. Decoded keys and values are views into the body.
 */

/** Bytes that are not a binary records body (a FrameFormatError, "malformed"). */
export class BinaryRecordsError extends FrameFormatError {}

function encodedLength(records: readonly ProduceRecord[]): number {
  let size = 4;
  for (const record of records) {
    size += 8 + 4 + (record.key?.length ?? 0) + 4 + (record.value?.length ?? 0) + 4;
    const headers = record.headers;
    if (headers)
      for (const header of headers)
        size += 4 + Buffer.byteLength(header.key) + 4 + (header.value?.length ?? 0);
  }
  return size;
}

function writeBytes(out: Buffer, at: number, bytes: Buffer | null): number {
  if (bytes === null) return out.writeInt32LE(-1, at);
  at = out.writeInt32LE(bytes.length, at);
  // set(), not bytes.copy(): copy() wraps the source in a new Uint8Array on every call.
  out.set(bytes, at);
  return at + bytes.length;
}

/** One pass over the records into one buffer (on the produce path: 500 records per batch). */
export function encodeBinaryRecords(records: readonly ProduceRecord[]): Buffer {
  const out = Buffer.allocUnsafe(encodedLength(records));
  let at = out.writeUInt32LE(records.length, 0);
  for (const record of records) {
    at = out.writeDoubleLE(record.timestamp ?? Number.NaN, at);
    at = writeBytes(out, at, record.key);
    at = writeBytes(out, at, record.value);
    const headers = record.headers;
    at = out.writeUInt32LE(headers?.length ?? 0, at);
    if (headers)
      for (const header of headers) {
        const length = out.write(header.key, at + 4);
        at = out.writeUInt32LE(length, at) + length;
        at = writeBytes(out, at, header.value);
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
