import { z } from "zod";
import { readRecordSchema } from "./read-records.schema";
import { topicNameSchema } from "./topic.schema";

/** Most matching records one search returns. */
export const MAX_SEARCH_RESULTS = 500;
/** Most records one search reads (over all its partitions) before it stops and says how far it got. */
export const MAX_SEARCH_SCAN = 50_000;
/** Most bytes (keys, values, headers) one search reads. */
export const MAX_SEARCH_BYTES = 256 * 1024 * 1024;
/** Longest one search runs: past it, it answers what it found and where to continue. */
export const MAX_SEARCH_MS = 30_000;
/** Longest a programmable filter may take on one record before the search fails. */
export const FILTER_RECORD_MS = 500;
/** Heap a programmable filter may use. */
export const FILTER_MEMORY_MB = 64;

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
  filter: z
    .object({
      regex: z
        .object({
          pattern: z.string().min(1).max(1_000),
          flags: z
            .string()
            .regex(/^(?!.*(.).*\1)[imsu]*$/, "flags are any of i, m, s and u, each once")
            .default(""),
          on: z
            .array(z.enum(["key", "value", "headers"]))
            .min(1)
            .default(["key", "value", "headers"]),
        })
        .optional()
        .meta({
          description: "A regular expression that the key, the value or a header value (UTF-8) matches",
        }),
      javascript: z
        .string()
        .min(1)
        .max(10_000)
        .optional()
        .meta({
          description: `A function body over \`record\` (partition, offset, timestamp, key, value, headers by name, json: the value parsed or undefined); a truthy return keeps the record. Runs in a sandbox with nothing but the record: ${FILTER_RECORD_MS} ms per record, ${FILTER_MEMORY_MB} MB, the search's timeLimitMs`,
          example: "return record.json?.total > 100 && record.headers.source === 'web'",
        }),
    })
    .optional()
    .meta({ description: "A programmable filter, run after the text filters; both parts must hold" }),
  decode: z.boolean().default(false).meta({
    description:
      "Decode keys and values framed in Confluent's wire format with the tenant's schema registry (needs schemas:read) before filtering: the filters and JSON path see the decoded JSON",
  }),
  limit: z.number().int().min(1).max(MAX_SEARCH_RESULTS).default(100),
  scanLimit: z.number().int().min(1).max(MAX_SEARCH_SCAN).default(10_000),
  byteLimit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_BYTES)
    .default(64 * 1024 * 1024)
    .meta({ description: "Bytes (keys, values, headers) read before the search stops" }),
  timeLimitMs: z
    .number()
    .int()
    .min(100)
    .max(MAX_SEARCH_MS)
    .default(10_000)
    .meta({ description: "How long the search may run before it stops" }),
});

export type SearchRecordsInput = z.infer<typeof searchRecordsInput>;

export const searchedRecordSchema = readRecordSchema.extend({ partition: z.number().int() });

export const searchRecordsOutput = z.object({
  records: z
    .array(searchedRecordSchema)
    .meta({ description: "Matches of every partition merged by timestamp (then partition, offset)" }),
  scanned: z.number().int().meta({ description: "Records read to find them" }),
  bytesScanned: z.number().int().meta({ description: "Bytes of keys, values and headers read" }),
  positions: z.array(
    z.object({
      partition: z.number().int(),
      offset: z.number().int().meta({ description: "Where this partition's next scan continues" }),
      logStartOffset: z.number().int(),
      logEndOffset: z.number().int(),
    }),
  ),
  stoppedBy: z.enum(["end", "limit", "scanLimit", "byteLimit", "timeLimit"]).meta({
    description:
      "end: every partition was read to its log end; limit: `limit` matches; scanLimit: `scanLimit` records read; byteLimit: `byteLimit` bytes read; timeLimit: `timeLimitMs` passed",
  }),
});

export type SearchRecordsOutput = z.infer<typeof searchRecordsOutput>;
