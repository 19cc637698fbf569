import { KafkaProtocolError } from "./errors";
import { Reader } from "./primitives";

/**
 * The embedded protocol of "consumer" groups: the bytes a member puts in JoinGroup's protocol
 * metadata (ConsumerProtocolSubscription) and the leader hands out in SyncGroup
 * (ConsumerProtocolAssignment). The broker never needs them to coordinate; it reads them to show
 * who reads what. Both are non-flexible at every version (0–3): an int16 version, then int32
 * counts and int16-length strings. Later versions only append fields, so a newer member's bytes
 * decode by their known prefix, as Kafka's own parser reads them.
 */
export interface ConsumerSubscription {
  version: number;
  topics: string[];
}

export interface ConsumerAssignment {
  version: number;
  /** The assigned partitions by topic, in the order the leader wrote them. */
  topics: { topic: string; partitions: number[] }[];
}

/** The topics a member subscribes to; throws KafkaProtocolError on bytes that do not parse. */
export function decodeConsumerSubscription(bytes: Buffer): ConsumerSubscription {
  const reader = new Reader(bytes);
  const version = readVersion(reader);
  const topics = readArray(reader, 2, () => readString(reader));
  return { version, topics };
}

/**
 * The partitions a member was assigned; throws KafkaProtocolError on bytes that do not parse. An
 * empty buffer is no assignment (what the coordinator holds before the first SyncGroup).
 */
export function decodeConsumerAssignment(bytes: Buffer): ConsumerAssignment {
  if (bytes.length === 0) return { version: 0, topics: [] };
  const reader = new Reader(bytes);
  const version = readVersion(reader);
  const topics = readArray(reader, 6, () => ({
    topic: readString(reader),
    partitions: readArray(reader, 4, () => reader.int32()),
  }));
  return { version, topics };
}

function readVersion(reader: Reader): number {
  const version = reader.int16();
  if (version < 0) throw new KafkaProtocolError("INVALID_VALUE", `consumer protocol version ${version}`);
  return version;
}

/** An int32-counted array; the count is checked against the smallest element before anything is read. */
function readArray<T>(reader: Reader, minElementBytes: number, element: () => T): T[] {
  const count = reader.int32();
  if (count < 0) throw new KafkaProtocolError("INVALID_LENGTH", `array count ${count}`);
  reader.need(count * minElementBytes);
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(element());
  return out;
}

function readString(reader: Reader): string {
  const length = reader.int16();
  if (length < 0) throw new KafkaProtocolError("NULL_NOT_ALLOWED", "topic name is null");
  return reader.utf8(length);
}
