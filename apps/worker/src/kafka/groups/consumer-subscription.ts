/**
 * The topics a member of a "consumer" group subscribes to, read from its JoinGroup protocol
 * metadata (Kafka's ConsumerProtocolSubscription: int16 version, then a non-flexible array of
 * int16-length topic names; the later fields — user data, owned partitions, generation, rack —
 * follow and are not needed here). OffsetDelete needs only this to refuse a topic the group reads.
 * Metadata that does not parse yields no topics: the member then protects nothing, as Kafka treats
 * a subscription it cannot read.
 */
export function subscribedTopics(metadata: Buffer): string[] {
  if (metadata.length < 6) return [];
  const count = metadata.readInt32BE(2);
  const topics: string[] = [];
  let pos = 6;
  for (let i = 0; i < count; i++) {
    if (pos + 2 > metadata.length) return [];
    const length = metadata.readInt16BE(pos);
    pos += 2;
    if (length < 0 || pos + length > metadata.length) return [];
    topics.push(metadata.toString("utf8", pos, pos + length));
    pos += length;
  }
  return topics;
}
