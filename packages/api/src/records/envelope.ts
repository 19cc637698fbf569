import type { Envelope, EnvelopeFormat, EnvelopeJson } from "@lastword/envelope";
import { AppError } from "../errors/app-error";

export { ENVELOPE_FORMATS, type Envelope, type EnvelopeFormat, envelopeSchema } from "@lastword/envelope";

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

function asJson(bytes: Buffer): { value: EnvelopeJson } | null {
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
