import protobuf from "protobufjs";
import type { AvroType } from "./formats/avro-format";
import type { JsonSchemaHandle } from "./formats/json-schema-format";
import type { ProtobufHandle } from "./formats/protobuf-format";
import type { ParsedSchema } from "./formats/schema-format";
import { readMessageIndexes, writeMessageIndexes } from "./wire-format";

/**
 * A payload's value as JSON, through its schema's library: what the console and the REST API
 * show for a framed record. Avro longs and bytes come out as JSON numbers and base64 strings.
 */
export function decodePayload(schema: ParsedSchema, payload: Uint8Array): unknown {
  switch (schema.schemaType) {
    case "AVRO": {
      const type = schema.handle as AvroType;
      return JSON.parse(type.toString(type.fromBuffer(Buffer.from(payload))));
    }
    case "JSON":
      return JSON.parse(Buffer.from(payload).toString("utf8"));
    case "PROTOBUF": {
      const { indexes, body } = readMessageIndexes(payload);
      const type = messageAt(schema.handle as ProtobufHandle, indexes);
      return type.toObject(type.decode(body), {
        longs: String,
        enums: String,
        bytes: String,
        defaults: true,
      });
    }
  }
}

/** The message a Protobuf message-index path names (top-level declaration order, then nested). */
function messageAt(handle: ProtobufHandle, indexes: readonly number[]): protobuf.Type {
  let candidates = handle.types.filter((t): t is protobuf.Type => t instanceof protobuf.Type);
  let type: protobuf.Type | undefined;
  for (const index of indexes) {
    type = candidates[index];
    if (!type) throw new Error(`message index ${index} names no message`);
    candidates = type.nestedArray.filter((t): t is protobuf.Type => t instanceof protobuf.Type);
  }
  if (!type) throw new Error("empty message-index path");
  return type;
}

/**
 * A JSON value encoded with a schema (the produce form's "produce with a schema"): checked first,
 * with the library's own reason when it does not fit. Protobuf encodes the file's first message.
 */
export function encodePayload(schema: ParsedSchema, value: unknown): Uint8Array {
  switch (schema.schemaType) {
    case "AVRO": {
      const type = schema.handle as AvroType;
      const paths: string[] = [];
      const fits = type.isValid(value, { errorHook: (path) => paths.push(path.join(".") || "(root)") });
      if (!fits) throw new Error(`the value does not match the Avro schema at ${paths.join(", ")}`);
      return type.toBuffer(value);
    }
    case "JSON": {
      const handle = schema.handle as JsonSchemaHandle;
      if (!handle.validate(value))
        throw new Error(`the value does not match the JSON schema: ${handle.errors()}`);
      return Buffer.from(JSON.stringify(value));
    }
    case "PROTOBUF": {
      const type = messageAt(schema.handle as ProtobufHandle, [0]);
      const problem = type.verify(value as Record<string, unknown>);
      if (problem) throw new Error(`the value does not match the Protobuf message ${type.name}: ${problem}`);
      const body = type.encode(type.fromObject(value as Record<string, unknown>)).finish();
      const indexes = writeMessageIndexes([0]);
      const out = new Uint8Array(indexes.length + body.length);
      out.set(indexes, 0);
      out.set(body, indexes.length);
      return out;
    }
  }
}
