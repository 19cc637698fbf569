import { FRAMES_CONTENT_TYPE } from "@lastword/frames";
import { MAX_STREAM_WAIT_MS, NDJSON_CONTENT_TYPE } from "./record-stream";

/**
 * The streaming routes in the OpenAPI document. They are served beside trpc-to-openapi (which
 * only answers whole JSON documents), so their entries are written here by hand.
 */
const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

const topicParameter = {
  in: "path",
  name: "topic",
  required: true,
  schema: { type: "string", minLength: 1, maxLength: 249, pattern: "^[a-zA-Z0-9._-]+$" },
  description: "Topic name, unique within the tenant",
};

const formatParameters = ["keyFormat", "valueFormat"].map((name) => ({
  in: "query",
  name,
  schema: { type: "string", enum: ["auto", "string", "json", "base64"], default: "auto" },
  description: "NDJSON only: how envelopes show the bytes (binary frames carry the bytes themselves)",
}));

const streamed = (what: string) => ({
  "200": {
    description: `${what}. NDJSON (the default): one line per record {partition, offset, timestamp, key, value, headers}, then {"end":true,"offsets":[{partition, offset}]}; a failure after the 200 is a last line {"error": problem} and no offsets line. With \`Accept: ${FRAMES_CONTENT_TYPE}\`: binary frames (big-endian): partition u8 5|u32; batch u8 4|u32 length|records (f64 offset|f64 timestamp|i32 keyLen (-1 null)|key|i32 valueLen (-1 tombstone)|value|u16 headers|per header u16 nameLen|name|i32 valueLen|value); stored u8 7|u32 length|f64 from|f64 end|i32 keepCount (-1 none)|keepCount×f64 offset|Kafka RecordBatch v2 batches as stored (uncompressed; the records meant are those with from ≤ offset < end, and with a keep list only the listed offsets); offsets u8 6|u32 count|(u32 partition|f64 offset)…; error u8 3|u32 length|problem JSON. A reader must accept both batch and stored frames.`,
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

export const STREAM_OPENAPI_PATHS = {
  "/topics/{topic}/records/stream": {
    get: {
      operationId: "records-stream",
      summary: "Replay a topic: every retained record, partition after partition, then the offsets",
      tags: ["records"],
      security: [{ bearerAuth: [] }],
      parameters: [
        topicParameter,
        {
          in: "query",
          name: "from",
          schema: { type: "string", enum: ["earliest", "latest"], default: "earliest" },
        },
        {
          in: "query",
          name: "offsets",
          schema: { type: "string", pattern: "^\\d+:\\d+(,\\d+:\\d+)*$" },
          description: "Resume: partition:offset pairs (e.g. 0:120,1:98); other partitions start at `from`",
        },
        {
          in: "query",
          name: "waitMs",
          schema: { type: "integer", minimum: 0, maximum: MAX_STREAM_WAIT_MS, default: 0 },
          description: "Long poll: wait up to this long for a record past the start",
        },
        ...formatParameters,
      ],
      responses: streamed("The records from the start up to each partition's log end when the stream began"),
    },
  },
  "/topics/{topic}/snapshot": {
    get: {
      operationId: "records-snapshot",
      summary: "Snapshot a topic: the latest live record of each key, then the offsets it is consistent with",
      tags: ["records"],
      security: [{ bearerAuth: [] }],
      parameters: [topicParameter, ...formatParameters],
      responses: streamed("One record per live key"),
    },
  },
};
