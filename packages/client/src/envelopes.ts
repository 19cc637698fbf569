import type { Envelope } from "@lastword/api";

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
