import { FRAMES_CONTENT_TYPE } from "@lastword/frames";
import type { OpenAPIObject } from "trpc-to-openapi";
import { NDJSON_CONTENT_TYPE } from "./record-stream";

const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

const streamed = (what: string) => ({
  "200": {
    description: `${what}. NDJSON (the default): one line per record {partition, offset, timestamp, key, value, headers}, then {"end":true,"offsets":[{partition, offset}]}; a failure after the 200 is a last line {"error": problem} and no offsets line. With \`Accept: ${FRAMES_CONTENT_TYPE}\`: binary frames (big-endian): partition u8 5|u32; batch u8 4|u32 length|records (f64 offset|f64 timestamp|i32 keyLen (-1 null)|key|i32 valueLen (-1 tombstone)|value|u16 headers|per header u16 nameLen|name|i32 valueLen|value); stored u8 7|u32 length|f64 from|f64 end|i32 keepCount (-1 none)|keepCount×f64 offset|Kafka RecordBatch v2 batches as stored, compressed ones sent plain (the records meant are those with from ≤ offset < end, and with a keep list only the listed offsets); offsets u8 6|u32 count|(u32 partition|f64 offset)…; error u8 3|u32 length|problem JSON. A reader must accept both batch and stored frames.`,
    content: {
      [NDJSON_CONTENT_TYPE]: { schema: { type: "string" } },
      [FRAMES_CONTENT_TYPE]: { schema: { type: "string", format: "binary" } },
    },
  },
  "400": { description: "Invalid input data", content: problem },
  "401": { description: "Authorization not provided", content: problem },
  "403": { description: "Insufficient access (records:read)", content: problem },
  "404": { description: "No such resource in this tenant", content: problem },
  "429": { description: "Rate limit or quota reached (see Retry-After)", content: problem },
});

const STREAMED: Record<string, string> = {
  "/topics/{topic}/records/stream":
    "The records from the start up to each partition's log end when the stream began",
  "/topics/{topic}/snapshot": "One record per live key",
};

/**
 * The streaming routes' entries are generated from their procedures' schemas (record-stream.ts);
 * their answer is a stream, not the plan the procedure returns, so its responses are described here.
 */
export function documentStreams(document: OpenAPIObject): void {
  for (const [path, what] of Object.entries(STREAMED)) {
    const operation = (
      document.paths?.[path] as { get?: { responses?: Record<string, unknown> } } | undefined
    )?.get;
    if (operation) operation.responses = streamed(what);
  }
}
