import { z } from "zod";
import { readRecordSchema } from "./read-records.schema";
import { topicNameSchema } from "./topic.schema";

/** Most matching records one search returns. */
export const MAX_SEARCH_RESULTS = 500;
/** Most records one search reads (over all its partitions) before it stops and says how far it got. */
export const MAX_SEARCH_SCAN = 50_000;

const text = z.string().min(1).max(1_000);

const positionSchema = z.object({
  partition: z.number().int().min(0),
  offset: z.number().int().min(0),
});

export const searchRecordsInput = z.object({
  topic: topicNameSchema,
  partitions: z
    .array(z.number().int().min(0))
    .max(10_000)
    .optional()
    .meta({ description: "Partitions to read; all of the topic's when left out" }),
  start: z
    .discriminatedUnion("from", [
      z.object({ from: z.literal("earliest") }),
      z.object({ from: z.literal("latest") }),
      z.object({ from: z.literal("timestamp"), timestamp: z.number().int().min(0) }),
      z.object({
        from: z.literal("offsets"),
        offsets: z.array(positionSchema).min(1).max(10_000),
      }),
    ])
    .default({ from: "earliest" })
    .meta({
      description:
        "Where each partition's scan starts: log start, its last `limit` records, the first record at or after a time, or an offset per partition (a previous answer's `positions` continue it)",
    }),
  until: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Epoch ms: records stamped later are scanned but not returned" }),
  key: text.optional().meta({ description: "The key contains this text (case-insensitive)" }),
  value: text.optional().meta({ description: "The value contains this text (case-insensitive)" }),
  header: z
    .object({ key: text, value: text.optional() })
    .optional()
    .meta({ description: "A header with this name, whose value contains `value` (case-insensitive)" }),
  jsonPath: z
    .object({ path: text, equals: z.string().max(1_000).optional() })
    .optional()
    .meta({
      description:
        "The value is JSON and the path (JSONPath, from `$`; no filter scripts) selects something, equal to `equals` when given (strings as they are, other values as JSON)",
    }),
  decode: z.boolean().default(false).meta({
    description:
      "Decode keys and values framed in Confluent's wire format with the tenant's schema registry (needs schemas:read) before filtering: the filters and JSON path see the decoded JSON",
  }),
  limit: z.number().int().min(1).max(MAX_SEARCH_RESULTS).default(100),
  scanLimit: z.number().int().min(1).max(MAX_SEARCH_SCAN).default(10_000),
});

export type SearchRecordsInput = z.infer<typeof searchRecordsInput>;

export const searchedRecordSchema = readRecordSchema.extend({ partition: z.number().int() });

export const searchRecordsOutput = z.object({
  records: z
    .array(searchedRecordSchema)
    .meta({ description: "Matches of every partition merged by timestamp (then partition, offset)" }),
  scanned: z.number().int().meta({ description: "Records read to find them" }),
  positions: z.array(
    z.object({
      partition: z.number().int(),
      offset: z.number().int().meta({ description: "Where this partition's next scan continues" }),
      logStartOffset: z.number().int(),
      logEndOffset: z.number().int(),
    }),
  ),
  stoppedBy: z.enum(["end", "limit", "scanLimit"]).meta({
    description:
      "end: every partition was read to its log end; limit: `limit` matches; scanLimit: `scanLimit` records read",
  }),
});

export type SearchRecordsOutput = z.infer<typeof searchRecordsOutput>;
