import { z } from "zod";

// The record envelope: how the REST API, the console and the audit trail write a record's key, value
// or header value as JSON. Browser-safe (zod only, no Buffer): the console's forms and views import
// the same definition the API validates with; the byte conversions live with their callers (the
// API's `records/envelope.ts`, the client's `envelopes.ts`).

// Not checked by the schema: z.base64() runs a regex and atob() over every string, and the API
// decodes the bytes right after anyway, refusing what was not base64 (`envelopeToBytes`).
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

/** A JSON value as a `json` envelope carries it. */
export type EnvelopeJson = z.core.util.JSONType;

/** The encodings an envelope is written in. */
export type Encoding = Envelope["type"];

/**
 * The formats a reader may ask bytes back in: an encoding, or `auto` (JSON stays text, text stays
 * text, anything else is base64).
 */
export const ENVELOPE_FORMATS = ["auto", "string", "json", "base64"] as const;
export type EnvelopeFormat = (typeof ENVELOPE_FORMATS)[number];

/**
 * Bytes that are present, as `auto` shows them without parsing JSON: text when UTF-8, else base64
 * (the audit trail's keys).
 */
export type TextOrBytesEnvelope = { type: "string"; data: string } | { type: "base64"; data: string };
