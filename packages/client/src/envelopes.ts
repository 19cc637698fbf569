import type { Envelope, RouterInputs } from "@lastword/api";
import { BY_KEY_PARTITION, encodeProduceFrames as encodeFrames, NO_TIMESTAMP } from "@lastword/frames";
import { LastwordApiError } from "./problem-error";

/** Builders for typed key/value envelopes. */
export const envelope = {
  string: (data: string): Envelope => ({ type: "string", data }),
  json: (data: Extract<Envelope, { type: "json" }>["data"]): Envelope => ({ type: "json", data }),
  bytes: (data: Uint8Array): Envelope => ({ type: "base64", data: Buffer.from(data).toString("base64") }),
};

/** An envelope's bytes (null for a null key or a tombstone). */
export function envelopeBytes(value: Envelope | null): Buffer | null {
  if (value === null || value.data === null) return null;
  if (value.type === "base64") return Buffer.from(value.data, "base64");
  if (value.type === "string") return Buffer.from(value.data, "utf8");
  return Buffer.from(JSON.stringify(value.data), "utf8");
}

/** A record of `records.produce`: envelopes, an optional partition and timestamp, headers. */
export type ProduceRecord = RouterInputs["records"]["produce"]["records"][number];

function invalid(detail: string): LastwordApiError {
  return new LastwordApiError(
    { type: "about:blank", title: "Bad Request", status: 400, code: "INVALID_INPUT", detail },
    null,
  );
}

/** An envelope's bytes, refusing base64 the JSON route would refuse (Buffer.from skips bad characters). */
function checkedBytes(value: Envelope | null | undefined, where: string): Buffer | null {
  if (!value || value.data === null || value.type !== "base64") return envelopeBytes(value ?? null);
  const data = value.data;
  const bytes = Buffer.from(data, "base64");
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  if (data.length % 4 !== 0 || bytes.length !== (data.length / 4) * 3 - padding || /[-_]/.test(data)) {
    throw invalid(`${where}.data is not base64: use the standard alphabet, padded to a multiple of 4.`);
  }
  return bytes;
}

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
      key: checkedBytes(r.key, `records[${i}].key`),
      value: checkedBytes(r.value, `records[${i}].value`),
      headers: (r.headers ?? []).map((h, j) => ({
        key: h.key,
        value: checkedBytes(h.value, `records[${i}].headers[${j}].value`),
      })),
    })),
  );
}
