import type { FrameRecord, FrameRecordHeader, ProduceFrameRecord } from "@lastword/frames";
import type { WireFetchedRecord, WireProduceRecord } from "./protocol";

// The record shapes are those of the frame formats (@lastword/frames), under the data plane's names.
export type RecordHeader = FrameRecordHeader;
/** A record as a producer hands it over; null value = tombstone, empty Buffer = empty value. */
export type ProduceRecord = ProduceFrameRecord;
export type FetchedRecord = FrameRecord;

function toWire(bytes: Buffer | null): string | null {
  return bytes === null ? null : bytes.toString("base64");
}

function fromWire(text: string | null): Buffer | null {
  return text === null ? null : Buffer.from(text, "base64");
}

function headersToWire(headers: readonly RecordHeader[]): { key: string; value: string | null }[] {
  return headers.map((h) => ({ key: h.key, value: toWire(h.value) }));
}

function headersFromWire(headers: readonly { key: string; value: string | null }[]): RecordHeader[] {
  return headers.map((h) => ({ key: h.key, value: fromWire(h.value) }));
}

export function encodeProduceRecord(record: ProduceRecord): WireProduceRecord {
  const wire: WireProduceRecord = { key: toWire(record.key), value: toWire(record.value) };
  if (record.timestamp !== undefined) wire.timestamp = record.timestamp;
  if (record.headers?.length) wire.headers = headersToWire(record.headers);
  return wire;
}

export function decodeProduceRecord(wire: WireProduceRecord): ProduceRecord {
  const record: ProduceRecord = { key: fromWire(wire.key), value: fromWire(wire.value) };
  if (wire.timestamp !== undefined) record.timestamp = wire.timestamp;
  record.headers = wire.headers ? headersFromWire(wire.headers) : [];
  return record;
}

export function encodeFetchedRecord(record: FetchedRecord): WireFetchedRecord {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    key: toWire(record.key),
    value: toWire(record.value),
    headers: headersToWire(record.headers),
  };
}

export function decodeFetchedRecord(wire: WireFetchedRecord): FetchedRecord {
  return {
    offset: wire.offset,
    timestamp: wire.timestamp,
    key: fromWire(wire.key),
    value: fromWire(wire.value),
    headers: headersFromWire(wire.headers),
  };
}
