import { describeFrames, FRAMES_CONTENT_TYPE } from "@lastword/frames";
import type { OpenAPIObject } from "trpc-to-openapi";
import { NDJSON_CONTENT_TYPE } from "./record-stream";

const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

const streamed = (what: string) => ({
  "200": {
    description: `${what}. NDJSON (the default): one line per record {partition, offset, timestamp, key, value, headers}, then {"end":true,"offsets":[{partition, offset}]}; a failure after the 200 is a last line {"error": problem} and no offsets line. With \`Accept: ${FRAMES_CONTENT_TYPE}\`: binary frames, big-endian: ${describeFrames(["partition", "batch", "stored", "offsets", "error"])}. A partition frame comes before each partition's record frames, the offsets frame (each partition's next offset) last; a stored frame's batches are sent as stored, compressed ones plain, and the records meant are those with fromOffset ≤ offset < endOffset and, with a keep list, only the listed offsets; an error frame's JSON is a problem document and no offsets frame follows. A reader must accept both batch and stored frames.`,
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
