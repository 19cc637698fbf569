import type { Envelope, RouterInputs } from "@lastword/api";
import { BY_KEY_PARTITION, encodeProduceFrames as encodeFrames, NO_TIMESTAMP } from "@lastword/frames";
import { fromBase64, toBase64, utf8Bytes } from "./bytes";
import { LastwordApiError } from "./problem-error";

/** Builders for typed key/value envelopes. */
export const envelope = {
  string: (data: string): Envelope => ({ type: "string", data }),
  json: (data: Extract<Envelope, { type: "json" }>["data"]): Envelope => ({ type: "json", data }),
  bytes: (data: Uint8Array): Envelope => ({ type: "base64", data: toBase64(data) }),
};

function invalid(detail: string): LastwordApiError {
  return new LastwordApiError(
    { type: "about:blank", title: "Bad Request", status: 400, code: "INVALID_INPUT", detail },
    null,
  );
}

function bytesAt(value: Envelope | null, where: string): Uint8Array | null {
  if (value === null || value.data === null) return null;
  if (value.type === "string") return utf8Bytes(value.data);
  if (value.type === "json") return utf8Bytes(JSON.stringify(value.data));
  const bytes = fromBase64(value.data);
  // Refused as the JSON route would refuse it, rather than decoded around the bad characters.
  if (!bytes)
    throw invalid(`${where}.data is not base64: use the standard alphabet, padded to a multiple of 4.`);
  return bytes;
}

/** An envelope's bytes (null for a null key or a tombstone); base64 that is not standard and padded throws. */
export function envelopeBytes(value: Envelope | null): Uint8Array | null {
  return bytesAt(value, "envelope");
}

/** A record of `records.produce`: envelopes, an optional partition and timestamp, headers. */
export type ProduceRecord = RouterInputs["records"]["produce"]["records"][number];

/**
 * The binary produce body for these records (`Content-Type: application/vnd.lastword.frames`, the
 * format @lastword/frames owns): the envelopes are turned into bytes here, so the server parses no
 * JSON or base64, which is most of what a JSON produce costs it.
 */
export function encodeProduceFrames(records: readonly ProduceRecord[]): Uint8Array {
  return encodeFrames(
    records.map((r, i) => ({
      partition: r.partition ?? BY_KEY_PARTITION,
      timestamp: r.timestamp ?? NO_TIMESTAMP,
      key: bytesAt(r.key ?? null, `records[${i}].key`),
      value: bytesAt(r.value ?? null, `records[${i}].value`),
      headers: (r.headers ?? []).map((h, j) => ({
        key: h.key,
        value: bytesAt(h.value ?? null, `records[${i}].headers[${j}].value`),
      })),
    })),
  );
}
