import { z } from "zod";
import { envelopeSchema } from "../records/envelope";

/** Limits of a record's headers (the binary produce body checks the same). */
export const MAX_HEADERS_PER_RECORD = 64;
export const MAX_HEADER_KEY_LENGTH = 256;

export const headerSchema = z.object({
  key: z.string().max(MAX_HEADER_KEY_LENGTH),
  value: envelopeSchema.nullable(),
});

/**
 * A partition with the range its log holds now (first offset still kept; the next offset to be
 * written): how every per-partition answer that reports the log's bounds (a key's versions, a
 * partition's segments) starts, so the routes agree on it.
 */
export const partitionLogRangeSchema = z.object({
  partition: z.number().int(),
  logStartOffset: z.number().int(),
  logEndOffset: z.number().int(),
});

export const problemItemSchema = z.object({
  code: z.string(),
  status: z.number().int(),
  detail: z.string(),
  /** On a failed write: whether it may have happened anyway (retry with the same Idempotency-Key). */
  writeMayHaveHappened: z.boolean().optional(),
});
