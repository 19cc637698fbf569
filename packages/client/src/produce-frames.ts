import type { Envelope, RouterInputs } from "@lastword/api";
import { BATCH, PARTITION } from "./binary-frames";
import { LastwordApiError } from "./problem-error";

/**
 * The binary produce body (`Content-Type: application/vnd.lastword.frames`; format in the API
 * README): the records' bytes behind a partition frame whenever the named partition changes, in
 * batch frames of the streaming routes' record layout. The server decodes it without JSON or
 * base64, which is most of what a JSON produce costs it.
 */
export type ProduceRecord = RouterInputs["records"]["produce"]["records"][number];

/** In a partition frame: the records that follow go where their key hashes (no partition named). */
const BY_KEY = 0xffffffff;
/** The record's timestamp when none is given (the server stamps it). */
const NO_TIMESTAMP = -1;

function invalid(detail: string): LastwordApiError {
  return new LastwordApiError(
    { type: "about:blank", title: "Bad Request", status: 400, code: "INVALID_INPUT", detail },
    null,
  );
}

/** An envelope's bytes, refusing base64 the JSON route would refuse (Buffer.from skips bad characters). */
function bytesOf(envelope: Envelope | null | undefined, where: string): Buffer | null {
  if (!envelope || envelope.data === null) return null;
  if (envelope.type === "string") return Buffer.from(envelope.data, "utf8");
  if (envelope.type === "json") return Buffer.from(JSON.stringify(envelope.data), "utf8");
  const data = envelope.data;
  const bytes = Buffer.from(data, "base64");
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  if (data.length % 4 !== 0 || bytes.length !== (data.length / 4) * 3 - padding || /[-_]/.test(data)) {
    throw invalid(`${where}.data is not base64: use the standard alphabet, padded to a multiple of 4.`);
  }
  return bytes;
}

interface Encoded {
  partition: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { name: Buffer; value: Buffer | null }[];
  size: number;
}

function encodeRecord(r: ProduceRecord, i: number): Encoded {
  const key = bytesOf(r.key, `records[${i}].key`);
  const value = bytesOf(r.value, `records[${i}].value`);
  const headers = (r.headers ?? []).map((h, j) => ({
    name: Buffer.from(h.key, "utf8"),
    value: bytesOf(h.value, `records[${i}].headers[${j}].value`),
  }));
  let size = 8 + 8 + 4 + (key?.length ?? 0) + 4 + (value?.length ?? 0) + 2;
  for (const h of headers) size += 2 + h.name.length + 4 + (h.value?.length ?? 0);
  return {
    partition: r.partition ?? BY_KEY,
    timestamp: r.timestamp ?? NO_TIMESTAMP,
    key,
    value,
    headers,
    size,
  };
}

/** The body for these records: one batch frame per run of records naming the same partition. */
export function encodeProduceFrames(records: readonly ProduceRecord[]): Buffer {
  const encoded = records.map(encodeRecord);
  // Runs of one partition: [start, end) into `encoded`, each one partition frame (when it changes) and one batch frame.
  const runs: { start: number; end: number; bytes: number }[] = [];
  let total = 0;
  let current = BY_KEY;
  for (const [i, r] of encoded.entries()) {
    const last = runs.at(-1);
    if (last && r.partition === encoded[last.start]!.partition) {
      last.end = i + 1;
      last.bytes += r.size;
    } else {
      if (r.partition !== current) total += 5;
      current = r.partition;
      runs.push({ start: i, end: i + 1, bytes: r.size });
      total += 5;
    }
    total += r.size;
  }
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  current = BY_KEY;
  const writeBytes = (bytes: Buffer | null) => {
    pos = out.writeInt32BE(bytes === null ? -1 : bytes.length, pos);
    if (bytes !== null) pos += bytes.copy(out, pos);
  };
  for (const run of runs) {
    const partition = encoded[run.start]!.partition;
    if (partition !== current) {
      pos = out.writeUInt8(PARTITION, pos);
      pos = out.writeUInt32BE(partition, pos);
      current = partition;
    }
    pos = out.writeUInt8(BATCH, pos);
    pos = out.writeUInt32BE(run.bytes, pos);
    for (let i = run.start; i < run.end; i++) {
      const r = encoded[i]!;
      pos = out.writeDoubleBE(0, pos); // offset: the log assigns it
      pos = out.writeDoubleBE(r.timestamp, pos);
      writeBytes(r.key);
      writeBytes(r.value);
      pos = out.writeUInt16BE(r.headers.length, pos);
      for (const h of r.headers) {
        pos = out.writeUInt16BE(h.name.length, pos);
        pos += h.name.copy(out, pos);
        writeBytes(h.value);
      }
    }
  }
  return out;
}
