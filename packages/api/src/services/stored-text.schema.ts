import { z } from "zod";

// Postgres `text` and `jsonb` cannot hold U+0000: an input string that reaches a query or a row
// with one fails in the driver (a 500). Every such input is refused here instead, as a 400.
// Record keys and values never pass through these: they travel as bytes to the workers.

const NUL = "\u0000";
const NUL_MESSAGE = "may not contain the NUL character (U+0000)";

/**
 * The one schema of a row id in input (API keys, members, invitations, erasure requests, audit
 * actors and targets): better-auth's ids, cuids and UUIDs are all letters, digits, `-` and `_`.
 * Anything else names no row, and is refused before any query.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, "is not an id (ids are letters, digits, '-' and '_')");

/** Free text stored or queried as Postgres text (names, notes, reasons, metadata). */
export function storedText(max: number) {
  return z
    .string()
    .max(max)
    .refine((text) => !text.includes(NUL), NUL_MESSAGE);
}

/** Whether a decoded string (a cursor's parts) can be sent to Postgres. */
export function isStorableText(text: string): boolean {
  return !text.includes(NUL);
}
