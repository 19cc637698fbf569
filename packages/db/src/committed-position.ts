/**
 * What a ConsumerGroupOffset row's offset means to whoever reads it: the next offset the group
 * reads or, when negative, no committed position at all. Kafka clients commit −1 and −2 to say
 * so (kafkajs does after OFFSET_OUT_OF_RANGE); the row keeps them as given because OffsetFetch
 * must answer them, and where such a consumer starts again is its own offset-reset policy's
 * choice, which the broker never learns. A reader has no position to measure lag from or to
 * compare with a tombstone: null, as Kafka's tools print "-".
 */
export function committedPosition(offset: bigint | number): number | null {
  return offset < 0 ? null : Number(offset);
}
