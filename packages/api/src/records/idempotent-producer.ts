import { createHash } from "node:crypto";

// A REST Idempotency-Key made durable with the data it protects: the key names an idempotent
// producer of the log store (the RecordBatch v2 header's producerId, producerEpoch and
// baseSequence), so the worker's append of a retried produce finds its first batch in the
// partition's producer state — after a crash, a partition move and a cleaner pass — and answers
// that batch's offsets instead of writing it again. The Kafka idempotent producer
// uses the same mechanism with ids InitProducerId hands out.
//
// Each REST produce is one batch per partition, so every key is a producer of one batch: epoch 0,
// sequence 0 in each partition it writes to. A retry of the same body is that batch again
// (duplicate → original offsets). A different body under the same key, once the Redis entry that
// refuses it outright has expired, is a batch with another sequence range: with another record
// count the log refuses it (OUT_OF_ORDER_SEQUENCE → 409 IDEMPOTENCY_KEY_REUSED); with the same
// count it is taken for the retry and answered with the first body's offsets (nothing written).

/**
 * REST producer ids are `2^52 + (52 bits of SHA-256(tenant, key))`: the range [2^52, 2^53 − 1].
 * Kafka producer ids that InitProducerId allocates must stay below 2^52, so the two
 * never meet; ids stay ≤ 2^53 − 1 because the log store reads the int64 field as a JS number.
 * Two keys of one tenant collide with probability about n² / 2^53 for n keys live (24 h) on one
 * partition: ~10⁻⁴ at a million keys a day on a single partition.
 */
export const REST_PRODUCER_ID_MIN = 2 ** 52;
export const REST_PRODUCER_ID_MAX = 2 ** 53 - 1;

export interface RestProducer {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

export function restProducer(tenantId: string, idempotencyKey: string): RestProducer {
  const digest = createHash("sha256").update(tenantId).update("\0").update(idempotencyKey).digest();
  const high20 = digest.readUInt32BE(0) >>> 12;
  const low32 = digest.readUInt32BE(4);
  return { producerId: REST_PRODUCER_ID_MIN + high20 * 2 ** 32 + low32, producerEpoch: 0, baseSequence: 0 };
}
