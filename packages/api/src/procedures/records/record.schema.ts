import { z } from "zod";
import { envelopeSchema } from "../../records/envelope";

/** Limits of a record's headers (the binary produce body checks the same). */
export const MAX_HEADERS_PER_RECORD = 64;
export const MAX_HEADER_KEY_LENGTH = 256;

export const headerSchema = z.object({
  key: z.string().max(MAX_HEADER_KEY_LENGTH),
  value: envelopeSchema.nullable(),
});

export const problemItemSchema = z.object({
  code: z.string(),
  status: z.number().int(),
  detail: z.string(),
  /** On a failed write: whether it may have happened anyway (retry with the same Idempotency-Key). */
  writeMayHaveHappened: z.boolean().optional(),
});
