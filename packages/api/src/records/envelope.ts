import { z } from "zod";

// The base64 alphabet with up to two padding characters at the end. With the length a multiple of
// 4 this is what z.base64() accepts, checked in one regex pass: z.base64() also runs atob() over
// the whole string, and the produce path decodes it to a Buffer right after anyway.
const BASE64_ALPHABET = /^[0-9a-zA-Z+/]*={0,2}$/;

export function isBase64(data: string): boolean {
  return data.length % 4 === 0 && BASE64_ALPHABET.test(data);
}

const base64Data = z
  .string()
  .refine(isBase64, { message: "Invalid base64: use the standard alphabet with padding" })
  .meta({ format: "base64", contentEncoding: "base64" });

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

export function envelopeToBytes(envelope: Envelope | null | undefined): Buffer | null {
  if (!envelope || envelope.data === null) return null;
  switch (envelope.type) {
    case "string":
      return Buffer.from(envelope.data, "utf8");
    case "json":
      return Buffer.from(JSON.stringify(envelope.data), "utf8");
    case "base64":
      return Buffer.from(envelope.data, "base64");
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
