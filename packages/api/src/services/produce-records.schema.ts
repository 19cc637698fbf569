import { z } from "zod";
import { envelopeSchema } from "../records/envelope";
import { headerSchema, MAX_HEADERS_PER_RECORD, problemItemSchema } from "./record.schema";
import { topicNameSchema } from "./topic.schema";

/** Most records one produce call may carry. */
export const MAX_RECORDS_PER_PRODUCE = 5000;

export const produceRecordSchema = z
  .object({
    key: envelopeSchema.nullable().optional().meta({ description: "null or absent: no key" }),
    value: envelopeSchema.nullable().optional().meta({ description: "null or absent: a tombstone" }),
    partition: z.number().int().min(0).optional().meta({ description: "Defaults to Kafka's key hash" }),
    timestamp: z.number().int().min(0).optional().meta({ description: "Milliseconds since the epoch" }),
    headers: z.array(headerSchema).max(MAX_HEADERS_PER_RECORD).optional(),
  })
  .meta({
    example: {
      key: { type: "string", data: "user-42" },
      value: { type: "json", data: { plan: "pro", email: "ada@example.com" } },
      headers: [{ key: "source", value: { type: "string", data: "billing" } }],
    },
  });

export const produceRecordsInput = z.object({
  topic: topicNameSchema,
  records: z.array(produceRecordSchema).min(1).max(MAX_RECORDS_PER_PRODUCE),
});

export type ProduceRecordsInput = z.infer<typeof produceRecordsInput>;

export const produceResultSchema = z.object({
  partition: z.number().int(),
  offset: z.number().int().optional(),
  error: problemItemSchema.optional().meta({ description: "Present when this record was not written" }),
});

export const produceRecordsOutput = z
  .object({ results: z.array(produceResultSchema) })
  .meta({ example: { results: [{ partition: 1, offset: 42 }] } });

export type ProduceResultItem = z.infer<typeof produceResultSchema>;
