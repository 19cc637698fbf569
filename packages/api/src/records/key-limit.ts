import { AppError } from "../errors/app-error";

/**
 * Largest record key, in bytes, anywhere a key enters the service: produce (JSON and binary
 * bodies), the key routes (`/topics/{topic}/keys/{key}`) and erasure requests. A key is stored in
 * every version of its record and in the owner's key index, and an erasure request replays it to
 * the workers; one bound keeps each of those small.
 */
export const MAX_KEY_BYTES = 4096;

/** Characters of the longest key as text or standard base64 (what a key schema may take before decoding). */
export const MAX_KEY_TEXT_LENGTH = Math.ceil(MAX_KEY_BYTES / 3) * 4;

export function keyTooLarge(bytes: number, where: string): AppError {
  return new AppError(
    "KEY_TOO_LARGE",
    `${where} is ${bytes} bytes; keys are at most ${MAX_KEY_BYTES} bytes.`,
    {
      details: { path: where, maxKeyBytes: MAX_KEY_BYTES },
    },
  );
}

/** Refuses a key over MAX_KEY_BYTES (a null key passes). */
export function assertKeySize(key: Uint8Array | null, where: string): void {
  if (key !== null && key.length > MAX_KEY_BYTES) throw keyTooLarge(key.length, where);
}
