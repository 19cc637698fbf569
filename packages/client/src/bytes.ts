/**
 * Text and base64 for the client's envelopes with the platform's own codecs (TextEncoder,
 * TextDecoder, btoa/atob), so the client runs unchanged in browsers: nothing here needs Node's
 * Buffer.
 */

const encoder = new TextEncoder();
// `fatal` makes invalid UTF-8 throw instead of decoding to U+FFFD, which is how bytes are told
// from text; a leading byte-order mark is dropped (as the server's NDJSON envelopes do).
const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const lossyDecoder = new TextDecoder("utf-8");

/**
 * A plain Uint8Array over `bytes[start, end)`. In Node the frame reader hands Buffer views, and a
 * Buffer's own `subarray` is slower to make than this (it goes through Buffer's species), and the
 * decoders are called twice per record on a cold start.
 */
export function view(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start);
}

export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The bytes as text when they are valid UTF-8, else null. */
export function utf8TextOrNull(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** The bytes as text, invalid sequences as U+FFFD (header names, which the server checks are text). */
export function utf8Text(bytes: Uint8Array): string {
  return lossyDecoder.decode(bytes);
}

// String.fromCharCode takes its bytes as arguments: this many stays well inside any engine's limit.
const CHUNK = 0x8000;

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(at, at + CHUNK));
  }
  return btoa(binary);
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of standard, padded base64, or null for anything else (no URL-safe alphabet, no
 * whitespace, no missing padding: what the JSON produce route accepts).
 */
export function fromBase64(data: string): Uint8Array | null {
  if (!STRICT_BASE64.test(data)) return null;
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
