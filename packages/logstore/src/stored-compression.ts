import { CODEC_IDS, compressionName } from "@lastword/record-batch";
import type { CompressionType } from "@lastword/topic-config";
import { InvalidRecordError } from "./errors";

/**
 * The codec id an appended batch is stored with, as Kafka's LogValidator picks its target codec:
 * the producer's own under `compression.type=producer`, else the topic's (`uncompressed` = none).
 * `producerCodec` is the codec id the producer's batch arrived with (0 for plain or REST records).
 */
export function storedCodec(type: CompressionType, producerCodec: number): number {
  if (!Number.isInteger(producerCodec) || compressionName(producerCodec) === null) {
    throw new InvalidRecordError(`unknown compression codec ${producerCodec}`);
  }
  if (type === "producer") return producerCodec;
  return type === "uncompressed" ? CODEC_IDS.none : CODEC_IDS[type];
}
