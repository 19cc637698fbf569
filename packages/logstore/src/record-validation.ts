import type { AppendRecord } from "@lastword/record-batch";
import { InvalidRecordError } from "./errors";

function isBytesOrNull(value: unknown): value is Buffer | null {
  return value === null || Buffer.isBuffer(value);
}

function checkHeaders(headers: unknown, index: number): void {
  if (headers === undefined) return;
  if (!Array.isArray(headers)) throw new InvalidRecordError(`record ${index}: headers must be an array`);
  for (const header of headers as unknown[]) {
    const { key, value } = (header ?? {}) as { key?: unknown; value?: unknown };
    if (typeof key !== "string" || !isBytesOrNull(value)) {
      throw new InvalidRecordError(
        `record ${index}: each header needs a string key and a Buffer or null value`,
      );
    }
  }
}

/**
 * Checks that records are what the encoder can write (Buffers or null, integer timestamps, string
 * header names); one bad record rejects the whole batch. What a record may hold on this topic (a
 * key on a compacted one, sizes) is checked on the encoded batch, by the same validation a
 * client's batch gets (batch-validation.ts). An empty value is a value: only `null` is a tombstone.
 */
export function validateAppendRecords(records: readonly AppendRecord[]): void {
  if (!Array.isArray(records) || records.length === 0) {
    throw new InvalidRecordError("an append needs at least one record");
  }
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as AppendRecord | undefined;
    if (record === null || typeof record !== "object")
      throw new InvalidRecordError(`record ${i} is not an object`);
    if (!isBytesOrNull(record.key) || !isBytesOrNull(record.value)) {
      throw new InvalidRecordError(`record ${i}: key and value must each be a Buffer or null`);
    }
    const ts = record.timestamp;
    if (ts !== undefined && !(Number.isSafeInteger(ts) && ts >= 0)) {
      throw new InvalidRecordError(`record ${i}: timestamp must be a non-negative integer (ms), got ${ts}`);
    }
    checkHeaders(record.headers, i);
  }
}
