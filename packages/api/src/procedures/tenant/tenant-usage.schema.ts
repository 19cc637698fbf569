import { z } from "zod";

/** One named limit of the quota (the name its errors and metrics use). */
const limit = (description: string) => z.number().int().meta({ description });

export const tenantUsageInput = z.object({}).optional();

export const tenantUsageOutput = z.object({
  quota: z.object({
    maxPartitions: z.number().int(),
    maxStoredBytes: z.number(),
    produceBytesPerSecond: z.number().int(),
    requestsPerSecond: z.number().int(),
    erasureDeadlineDays: z.number().int(),
    maxConnectionsPerWorker: limit("Kafka connections the tenant may hold open to one worker"),
    connectionsPerSecond: limit("Kafka connections the tenant may open on one worker per second"),
    maxBatchInflatedBytes: limit("Bytes one compressed record batch may decompress to"),
    maxRequestInflatedBytes: limit(
      "Bytes the record batches of one Produce request may decompress to, together",
    ),
    maxBatchRecords: limit("Records one record batch may hold"),
    requestTimeMsPerSecond: limit(
      "Milliseconds a second the tenant's Kafka requests may keep one worker's event loop busy",
    ),
    fetchBytesPerSecond: limit("Bytes a second the tenant's Kafka Fetch answers may carry from one worker"),
    maxTransactionTimeoutMs: limit(
      "The longest transaction.timeout.ms a Kafka transactional producer may ask for",
    ),
  }),
  partitions: z.number().int(),
  storedBytes: z.number().meta({ description: "As the workers last reported" }),
  today: z.record(z.string(), z.number()).meta({
    description:
      "UTC-day counters: producedRecords and producedBytes (REST produce: keys, values and headers), kafkaProducedBytes (Kafka Produce: the batches' inflated bytes, as the produce quota counts them), fetchedBytes (Kafka Fetch answers)",
  }),
});
