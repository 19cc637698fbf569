import { z } from "zod";
import { ENVELOPE_FORMATS, envelopeSchema } from "../records/envelope";
import { headerSchema } from "./record.schema";
import { topicNameSchema } from "./topic.schema";

/** Most records one read returns. */
export const MAX_RECORDS_PER_READ = 1000;

export const readRecordsInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MAX_RECORDS_PER_READ).default(100),
  keyFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
  valueFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
  decode: z.boolean().default(false).meta({
    description:
      "Decode keys and values framed in Confluent's wire format with the tenant's schema registry (needs schemas:read): they come back as json envelopes, with the schema in `schemas`",
  }),
});

export type ReadRecordsInput = z.infer<typeof readRecordsInput>;

const decodedWithSchema = z.object({
  id: z.number().int(),
  schemaType: z.string().optional(),
  subject: z.string().nullable().optional(),
  version: z.number().int().nullable().optional(),
  error: z
    .string()
    .optional()
    .meta({ description: "Why it was not decoded (the bytes are returned as they are)" }),
});

export const readRecordSchema = z.object({
  offset: z.number().int(),
  timestamp: z.number().int(),
  key: envelopeSchema.nullable(),
  value: envelopeSchema.nullable().meta({ description: "null: a tombstone" }),
  headers: z.array(headerSchema),
  schemas: z
    .object({ key: decodedWithSchema.optional(), value: decodedWithSchema.optional() })
    .optional()
    .meta({
      description:
        "With decode=true, for a framed key or value: the registry schema that decoded it, or why it did not",
    }),
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
