import { z } from "zod";
import { ENVELOPE_FORMATS, envelopeSchema } from "../../records/envelope";
import { topicNameSchema } from "../topics/topic.schema";
import { headerSchema } from "./record.schema";

/** Most records one read returns. */
export const MAX_RECORDS_PER_READ = 1000;

export const readRecordsInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MAX_RECORDS_PER_READ).default(100),
  keyFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
  valueFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
});

export type ReadRecordsInput = z.infer<typeof readRecordsInput>;

export const readRecordSchema = z.object({
  offset: z.number().int(),
  timestamp: z.number().int(),
  key: envelopeSchema.nullable(),
  value: envelopeSchema.nullable().meta({ description: "null: a tombstone" }),
  headers: z.array(headerSchema),
});

export const readRecordsOutput = z
  .object({
    records: z.array(readRecordSchema),
    nextOffset: z.number().int().meta({ description: "Offset to read from next; offsets may have gaps" }),
    logStartOffset: z.number().int(),
    logEndOffset: z.number().int(),
  })
  .meta({
    example: {
      records: [
        {
          offset: 41,
          timestamp: 1767605400000,
          key: { type: "string", data: "user-42" },
          value: { type: "json", data: { plan: "pro", email: "ada@example.com" } },
          headers: [{ key: "source", value: { type: "string", data: "billing" } }],
        },
        {
          offset: 43,
          timestamp: 1767605460000,
          key: { type: "string", data: "user-7" },
          value: null,
          headers: [],
        },
      ],
      nextOffset: 44,
      logStartOffset: 0,
      logEndOffset: 44,
    },
  });
