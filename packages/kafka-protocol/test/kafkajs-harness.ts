import { createRequire } from "node:module";
import { expect } from "vitest";

/*
 * Thin access to kafkajs 2.2.4's own protocol code (node_modules/kafkajs/src/protocol), used as an
 * independent implementation in contract tests. The package has no `exports` map, so deep
 * requires work; its modules are untyped, hence the narrow interfaces below.
 */

const require = createRequire(import.meta.url);

interface KafkaJsEncoder {
  buffer: Buffer;
}
interface KafkaJsRequest {
  apiKey: number;
  apiVersion: number;
  encode(): Promise<KafkaJsEncoder>;
}
interface KafkaJsResponse {
  decode(payload: Buffer): Promise<unknown>;
  parse(data: unknown): Promise<unknown>;
}
interface KafkaJsDefinition {
  request: KafkaJsRequest;
  response: KafkaJsResponse;
}
type Protocol = (options: { version: number }) => (args?: unknown) => KafkaJsDefinition;

export const CORRELATION_ID = 7;
export const CLIENT_ID = "contract-test";

/** `src/protocol/requests/<api>/index.js` `protocol({ version })(args)`: kafkajs's own argument mapping. */
export function kafkajsApi(api: string, version: number, args: unknown): KafkaJsDefinition {
  // biome-ignore lint/plugin: kafkajs's encoders are one module per API; the table of APIs names them.
  const { protocol } = require(`kafkajs/src/protocol/requests/${api}`) as { protocol: Protocol };
  return protocol({ version })(args);
}

/** A whole request frame as kafkajs's `src/protocol/request.js` writes it (size, header v1, body). */
export async function kafkajsRequestFrame(api: string, version: number, args: unknown): Promise<Buffer> {
  const createRequest = require("kafkajs/src/protocol/request") as (options: {
    correlationId: number;
    clientId: string;
    request: KafkaJsRequest;
  }) => Promise<KafkaJsEncoder>;
  const { request } = kafkajsApi(api, version, args);
  expect(request.apiVersion).toBe(version);
  const frame = (await createRequest({ correlationId: CORRELATION_ID, clientId: CLIENT_ID, request })).buffer;
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  return frame;
}

/**
 * Reads one of our response frames the way kafkajs's `network/connection.js` does (size,
 * correlation id, then the payload) and runs the version's `decode` then `parse`.
 */
export async function kafkajsParseResponse(api: string, version: number, args: unknown, frame: Buffer) {
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  expect(frame.readInt32BE(4)).toBe(CORRELATION_ID);
  const { response } = kafkajsApi(api, version, args);
  return response.parse(await response.decode(frame.subarray(8)));
}

interface KafkaJsRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
  headers: Record<string, Buffer>;
}

/** kafkajs's RecordBatch v2 encoder (`src/protocol/recordBatch/v0`), for record sets inside Fetch. */
export async function kafkajsRecordBatch(
  firstOffset: string,
  messages: { key: string | null; value: string | null }[],
): Promise<Buffer> {
  const { RecordBatch } = require("kafkajs/src/protocol/recordBatch/v0") as {
    RecordBatch(options: object): Promise<KafkaJsEncoder>;
  };
  const Record = require("kafkajs/src/protocol/recordBatch/record/v0") as (options: object) => unknown;
  const records = messages.map((message, offsetDelta) => Record({ ...message, offsetDelta }));
  const Long = require("kafkajs/src/utils/long") as { fromString(value: string): unknown };
  const batch = await RecordBatch({
    firstOffset: Long.fromString(firstOffset),
    lastOffsetDelta: messages.length - 1,
    records,
  });
  return batch.buffer;
}

/** kafkajs's RecordBatch v2 decoder (`src/protocol/recordBatch/v0/decoder.js`). */
export async function kafkajsDecodeBatch(bytes: Buffer): Promise<KafkaJsRecord[]> {
  const Decoder = require("kafkajs/src/protocol/decoder") as new (buffer: Buffer) => unknown;
  const decodeBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder") as (
    decoder: unknown,
  ) => Promise<{ records: KafkaJsRecord[] }>;
  return (await decodeBatch(new Decoder(bytes))).records;
}
