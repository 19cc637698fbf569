import { z } from "zod";

/**
 * Wire shapes of the key-lookup and streaming routes: latest value by key through the
 * worker's key index, every retained version of a key, and streamed replay/snapshot of a partition.
 */

/**
 * The body of `POST …/key` and `POST …/key-versions`: the key in base64, so any bytes fit. In the
 * body, not the URL: a key is as long as the API allows (MAX_KEY_BYTES there), and a long request
 * line is refused by the worker's HTTP server (431) before any handler sees it.
 */
export const keyRequestSchema = z.object({ key: z.base64() });

const bytes = z.string().nullable();
const offset = z.number().int().nonnegative();

export const keyLookupResponseSchema = z.object({
  /** Null when the key has no live value (never written, tombstoned, or its record is gone). */
  record: z
    .object({
      offset,
      timestamp: z.number().int(),
      value: z.string(),
      headers: z.array(z.object({ key: z.string(), value: bytes })),
    })
    .nullable(),
  logEndOffset: offset,
  /** Set when the key's latest retained record is a tombstone (older values may sit beneath it until a pass). */
  tombstoneOffset: offset.optional(),
});

export const keyVersionsResponseSchema = z.object({
  versions: z.array(
    z.object({
      offset,
      timestamp: z.number().int(),
      /** Null for a tombstone. */
      value: bytes,
      /** Base offset of the segment file holding the record. */
      segmentBaseOffset: offset,
    }),
  ),
  logStartOffset: offset,
  logEndOffset: offset,
});

export const STREAM_MODES = ["replay", "snapshot"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export const streamQuerySchema = z.object({
  mode: z.enum(STREAM_MODES),
  /** Replay only: first offset to send (clamped up to the log start). */
  offset: z.coerce.number().int().nonnegative().default(0),
});

export type KeyLookupResponse = z.infer<typeof keyLookupResponseSchema>;
export type KeyVersionsResponse = z.infer<typeof keyVersionsResponseSchema>;
export type StreamQuery = z.infer<typeof streamQuerySchema>;
