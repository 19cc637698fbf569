import { z } from "zod";

export const tenantUsageInput = z.object({}).optional();

export const tenantUsageOutput = z.object({
  quota: z.object({
    maxPartitions: z.number().int(),
    maxStoredBytes: z.number(),
    produceBytesPerSecond: z.number().int(),
    requestsPerSecond: z.number().int(),
    erasureDeadlineDays: z.number().int(),
  }),
  partitions: z.number().int(),
  storedBytes: z.number().meta({ description: "As the workers last reported" }),
  today: z
    .record(z.string(), z.number())
    .meta({ description: "UTC-day counters, e.g. producedRecords, producedBytes" }),
});
