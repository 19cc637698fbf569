import { decodeConsumerSubscription, KafkaProtocolError } from "@lastword/kafka-protocol";

/**
 * The topics a member of a "consumer" group subscribes to, read from its JoinGroup protocol
 * metadata. OffsetDelete needs only this to refuse a topic the group reads. Metadata that does not
 * parse yields no topics: the member then protects nothing, as Kafka treats a subscription it
 * cannot read.
 */
export function subscribedTopics(metadata: Buffer): string[] {
  try {
    return decodeConsumerSubscription(metadata).topics;
  } catch (error) {
    if (error instanceof KafkaProtocolError) return [];
    throw error;
  }
}
