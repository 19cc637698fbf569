import { z } from "zod";
import { DATA_PLANE_ERROR_CODES } from "./errors";

/**
 * The wire format between web and worker: JSON (fetch and streams answer binary frames instead),
 * bytes as base64, null kept as null so a tombstone (null value) stays distinct from an empty value
 * (""). Both sides validate with these schemas.
 */
export const SECRET_HEADER = "x-lastword-secret";

/** Upper bounds every worker enforces; a client asking for more gets them clamped. */
export const FETCH_LIMIT_MAX = 10_000;
export const FETCH_LIMIT_DEFAULT = 500;
export const FETCH_MAX_BYTES_DEFAULT = 1 << 20;
export const FETCH_MAX_BYTES_MAX = 64 << 20;
export const PRODUCE_RECORDS_MAX = 10_000;

const bytes = z.string().nullable();
const offset = z.number().int().nonnegative();

export const wireHeaderSchema = z.object({ key: z.string(), value: bytes });

export const wireProduceRecordSchema = z.object({
  key: bytes,
  value: bytes,
  timestamp: z.number().int().nonnegative().optional(),
  headers: z.array(wireHeaderSchema).optional(),
});

/**
 * An idempotent produce names its producer in this header, `<producerId>.<producerEpoch>.<baseSequence>`
 * (the RecordBatch v2 header fields the worker's append writes and checks, @lastword/logstore's
 * producer state): a resend of the same batch is answered with the first append's offsets and
 * `duplicate: true`, never written twice. Ids up to 2^53 − 1 (the log store reads them as numbers).
 */
export const PRODUCER_HEADER = "x-lastword-producer";

export interface ProducerFields {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

export const producerHeaderSchema = z
  .string()
  .regex(/^\d{1,16}\.\d{1,5}\.\d{1,10}$/, "expected <producerId>.<producerEpoch>.<baseSequence>")
  .transform((value) => {
    const [producerId, producerEpoch, baseSequence] = value.split(".").map(Number) as [
      number,
      number,
      number,
    ];
    return { producerId, producerEpoch, baseSequence };
  })
  .refine(
    (p) => Number.isSafeInteger(p.producerId) && p.producerEpoch <= 32767 && p.baseSequence <= 2147483647,
    "producer fields out of range",
  );

export function formatProducerHeader(producer: ProducerFields): string {
  return `${producer.producerId}.${producer.producerEpoch}.${producer.baseSequence}`;
}

export const produceRequestSchema = z.object({
  records: z.array(wireProduceRecordSchema).min(1).max(PRODUCE_RECORDS_MAX),
});

/**
 * One produce is one append, so its records get consecutive offsets: record i of the request got
 * `baseOffset + i`, and `count` is how many were written (always the whole request). Two numbers
 * rather than one offset per record, which the web side would parse and validate per batch.
 */
export const produceResponseSchema = z.object({
  baseOffset: offset,
  count: z.number().int().positive(),
  /** An idempotent produce that was a resend of a batch already in the log: its offsets, nothing written. */
  duplicate: z.boolean().optional(),
});

export const fetchQuerySchema = z.object({
  offset: z.coerce.number().int().nonnegative(),
  limit: z.coerce.number().int().positive().max(FETCH_LIMIT_MAX).default(FETCH_LIMIT_DEFAULT),
  maxBytes: z.coerce.number().int().positive().max(FETCH_MAX_BYTES_MAX).default(FETCH_MAX_BYTES_DEFAULT),
});

export const wireFetchedRecordSchema = z.object({
  offset,
  timestamp: z.number().int(),
  key: bytes,
  value: bytes,
  headers: z.array(wireHeaderSchema),
});

/**
 * A fetch is answered with the stream frames of @lastword/frames (not JSON): batch frames, then
 * the end frame carrying nextOffset (as its endOffset) and logStartOffset. The log end offset read
 * together with the records comes in this response header (all three are known before the first byte).
 */
export const FETCH_LOG_END_HEADER = "x-lastword-log-end-offset";
export const fetchLogEndHeaderSchema = z.coerce.number().int().nonnegative();

export const listOffsetsQuerySchema = z.object({
  timestamp: z.coerce.number().int().nonnegative().optional(),
});

export const listOffsetsResponseSchema = z.object({
  earliest: offset,
  latest: offset,
  /** Present when a timestamp was asked: the first offset whose timestamp is ≥ it, null when none is. */
  timestampOffset: offset.nullable().optional(),
});

/** "clean": behind the cleaner checkpoint; "dirty": not yet compacted; "active": being written. */
export const segmentStateSchema = z.enum(["clean", "dirty", "active"]);

export const segmentInfoSchema = z.object({
  baseOffset: offset,
  lastOffset: z.number().int(),
  sizeBytes: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  /** Records with a key and a null value. */
  tombstones: z.number().int().nonnegative(),
  firstTimestamp: z.number().int().nullable(),
  maxTimestamp: z.number().int().nullable(),
  active: z.boolean(),
  /** Evicted from the worker's disk: its bytes are in object storage only (a worker without one says false). */
  remote: z.boolean().default(false),
  state: segmentStateSchema,
});

export const cleanerStateSchema = z.object({
  dirtyRatio: z.number(),
  cleanable: z.boolean(),
  firstDirtyOffset: z.number().int(),
  firstUncleanableOffset: z.number().int(),
  maxCompactionDelayMs: z.number(),
  nextCleanDueAt: z.number().int().nullable(),
  lastCleanAt: z.number().int().nullable(),
  uncleanable: z
    .object({
      error: z.string(),
      failures: z.number().int(),
      held: z.boolean(),
      retryAt: z.number().int().nullable(),
    })
    .nullable(),
});

export const segmentsResponseSchema = z.object({
  logStartOffset: offset,
  logEndOffset: offset,
  /** Kafka's last stable offset: read_committed readers see the log up to here. */
  lastStableOffset: offset,
  /** The producers with a transaction open in the partition, by the offset it began at. */
  openTransactions: z.array(
    z.object({ producerId: z.number().int(), producerEpoch: z.number().int(), firstOffset: offset }),
  ),
  segments: z.array(segmentInfoSchema),
  /** Null on topics without compaction. */
  cleaner: cleanerStateSchema.nullable(),
});

export const cleanResponseSchema = z.object({ accepted: z.literal(true) });

/** Kafka's deleteRecords: moves the log start offset forward; segments below it go at the next retention pass. */
export const deleteRecordsRequestSchema = z.object({ beforeOffset: offset });
export const deleteRecordsResponseSchema = z.object({ logStartOffset: offset });

/**
 * A Kafka transaction's COMMIT or ABORT marker for one partition, sent by the transaction's
 * coordinator to the partition's owner: the producer whose transaction ends, and the coordinator
 * epoch (its lease epoch on the transactional id) the marker carries. Resending it is harmless: a
 * marker for a producer whose transaction already ended there changes nothing anyone reads.
 */
export const txnMarkerRequestSchema = z.object({
  producerId: z.number().int().nonnegative(),
  producerEpoch: z.number().int().min(0).max(32767),
  commit: z.boolean(),
  coordinatorEpoch: z.number().int().nonnegative(),
});
export const txnMarkerResponseSchema = z.object({ ok: z.literal(true) });

export const errorBodySchema = z.object({
  code: z.enum(DATA_PLANE_ERROR_CODES),
  message: z.string(),
  retriable: z.boolean(),
  /** A produce that failed after its append: the records may be in the log (never resent by the client). */
  writeMayHaveHappened: z.boolean().optional(),
});

export const healthResponseSchema = z.object({
  ok: z.literal(true),
  workerId: z.string(),
  partitions: z.number().int().nonnegative(),
});

export type WireProduceRecord = z.infer<typeof wireProduceRecordSchema>;
export type WireFetchedRecord = z.infer<typeof wireFetchedRecordSchema>;
export type ProduceRequest = z.infer<typeof produceRequestSchema>;
export type ProduceResponse = z.infer<typeof produceResponseSchema>;
export type FetchQuery = z.infer<typeof fetchQuerySchema>;
export type ListOffsetsResponse = z.infer<typeof listOffsetsResponseSchema>;
export type SegmentState = z.infer<typeof segmentStateSchema>;
export type SegmentInfo = z.infer<typeof segmentInfoSchema>;
export type SegmentsResponse = z.infer<typeof segmentsResponseSchema>;
export type CleanerState = z.infer<typeof cleanerStateSchema>;
export type DeleteRecordsResponse = z.infer<typeof deleteRecordsResponseSchema>;
export type TxnMarkerRequest = z.infer<typeof txnMarkerRequestSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;
export type HealthResponse = z.infer<typeof healthResponseSchema>;
