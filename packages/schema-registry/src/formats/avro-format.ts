import avro from "avsc";
import { invalidSchema } from "../registry-error";
import type { Incompatibility, ParsedSchema, ResolvedReference, SchemaFormat } from "./schema-format";

export type AvroType = avro.Type;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidSchema(`the Avro schema is not JSON (${(error as Error).message})`);
  }
}

/**
 * Avro through avsc: a reference is a schema whose named types the referring schema uses by
 * name, so references are parsed first into the registry the schema itself is parsed with.
 */
function parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema<AvroType> {
  const registry: Record<string, AvroType> = {};
  const options = { registry, assertLogicalTypes: false } as const;
  try {
    for (const ref of references) avro.Type.forSchema(parseJson(ref.schema) as avro.Schema, options);
  } catch (error) {
    throw invalidSchema(`a referenced schema does not parse (${(error as Error).message})`);
  }
  const json = parseJson(schema);
  let type: AvroType;
  try {
    type = avro.Type.forSchema(json as avro.Schema, options);
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
  const canonical = JSON.stringify(json);
  // With references the expanded form would inline the referenced types, so it stays as sent.
  const normalized = references.length > 0 ? canonical : JSON.stringify(type.schema({ exportAttrs: true }));
  return { schemaType: "AVRO", canonical, normalized, handle: type };
}

/** avsc's resolver is Avro's schema resolution: it refuses exactly what a reader cannot read. */
function readIssues(reader: ParsedSchema<AvroType>, writer: ParsedSchema<AvroType>): Incompatibility[] {
  try {
    reader.handle.createResolver(writer.handle);
    return [];
  } catch (error) {
    const message = (error as Error).message;
    return [
      { type: avroIssueType(message, reader.handle, writer.handle), location: "/", description: message },
    ];
  }
}

function avroIssueType(message: string, reader: AvroType, writer: AvroType): string {
  if (message.startsWith("no matching field for default-less")) return "READER_FIELD_MISSING_DEFAULT_VALUE";
  if (message.startsWith("no alias found")) return "NAME_MISMATCH";
  if (reader.typeName === "enum" && writer.typeName === "enum") return "MISSING_ENUM_SYMBOLS";
  if (reader.typeName.includes("union")) return "MISSING_UNION_BRANCH";
  return "TYPE_MISMATCH";
}

export const avroFormat: SchemaFormat<AvroType> = { schemaType: "AVRO", parse, readIssues };
