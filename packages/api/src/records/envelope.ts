import { z } from "zod";

import { AppError } from "../errors/app-error";

// Not checked by the schema: z.base64() runs a regex and atob() over every string, and the bytes
// are decoded right after anyway. `envelopeToBytes` decodes once and refuses what was not base64.
const base64Data = z.string().meta({ format: "base64", contentEncoding: "base64" });

/**
 * Typed key/value envelopes (after Confluent REST v3): `string` is UTF-8 text, `json` any JSON
 * value, `base64` raw bytes. A null envelope, or `data: null`, is a null key / a tombstone value;
 * `{"type":"string","data":""}` is an empty value, not a tombstone.
 */
export const envelopeSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("string"), data: z.string().nullable() }),
    z.object({ type: z.literal("json"), data: z.json().nullable() }),
    z.object({ type: z.literal("base64"), data: base64Data.nullable() }),
  ])
  .meta({ id: "Envelope", description: "Typed bytes: {type: string|json|base64, data}" });

export type Envelope = z.infer<typeof envelopeSchema>;

export const ENVELOPE_FORMATS = ["auto", "string", "json", "base64"] as const;
export type EnvelopeFormat = (typeof ENVELOPE_FORMATS)[number];

/**
 * Standard, padded base64 to bytes. Buffer.from skips characters outside the alphabet (and stops at
 * `=`), so anything else decodes to fewer bytes than the length promises; it does take the URL-safe
 * `-` and `_`, which are refused here.
 */
function base64ToBytes(data: string, where: string): Buffer {
  const bytes = Buffer.from(data, "base64");
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  if (
    data.length % 4 !== 0 ||
    bytes.length !== (data.length / 4) * 3 - padding ||
    data.includes("-") ||
    data.includes("_")
  ) {
    throw new AppError(
      "INVALID_INPUT",
      `${where}.data is not base64: use the standard alphabet, padded to a multiple of 4.`,
      { details: { path: where } },
    );
  }
  return bytes;
}

/** An envelope's bytes; `where` names it in the refusal of bad base64 (e.g. `records[3].value`). */
export function envelopeToBytes(envelope: Envelope | null | undefined, where = "envelope"): Buffer | null {
  if (!envelope || envelope.data === null) return null;
  switch (envelope.type) {
    case "string":
      return Buffer.from(envelope.data, "utf8");
    case "json":
      return Buffer.from(JSON.stringify(envelope.data), "utf8");
    case "base64":
      return base64ToBytes(envelope.data, where);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function asText(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function asJson(bytes: Buffer): { value: z.core.util.JSONType } | null {
  const text = asText(bytes);
  if (text === null) return null;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/**
 * Bytes back to an envelope in the requested format; bytes that cannot be shown that way (not
 * UTF-8, not JSON) fall back to base64, and the envelope's `type` says which was used.
 */
export function bytesToEnvelope(bytes: Buffer | null, format: EnvelopeFormat): Envelope | null {
  if (bytes === null) return null;
  if (format === "json") {
    const parsed = asJson(bytes);
    if (parsed) return { type: "json", data: parsed.value };
  }
  // A value that is not JSON is still shown as text when it is text; base64 is for bytes only.
  if (format !== "base64") {
    const text = asText(bytes);
    if (text !== null) return { type: "string", data: text };
  }
  return { type: "base64", data: bytes.toString("base64") };
}
