import { Ajv, type AnySchema } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { invalidSchema } from "../registry-error";
import { compareJsonSchemas, type JsonSchemaDocument } from "./json-schema-diff";
import {
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
  sortedJson,
} from "./schema-format";

export interface JsonSchemaHandle {
  document: JsonSchemaDocument;
  /** Referenced documents by the name the schema's `$ref`s use. */
  references: ReadonlyMap<string, JsonSchemaDocument>;
  validate: (value: unknown) => boolean;
  errors: () => string;
}

function parseJson(text: string, what: string): JsonSchemaDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidSchema(`${what} is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "boolean" && (value === null || typeof value !== "object" || Array.isArray(value))) {
    throw invalidSchema(`${what} must be a JSON object or a boolean`);
  }
  return value as JsonSchemaDocument;
}

function ajvFor(document: JsonSchemaDocument): Ajv {
  const draft = typeof document === "object" ? String(document.$schema ?? "") : "";
  // strict: false — Confluent accepts unknown keywords (e.g. its own "connect.type" annotations).
  const options = { strict: false, allErrors: false, validateFormats: false } as const;
  return draft.includes("2020-12") || draft.includes("2019-09") ? new Ajv2020(options) : new Ajv(options);
}

/** JSON Schema through ajv: references are documents added under the name `$ref` uses. */
function parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema<JsonSchemaHandle> {
  const document = parseJson(schema, "the JSON schema");
  const ajv = ajvFor(document);
  const refs = new Map<string, JsonSchemaDocument>();
  for (const ref of references) {
    const refDocument = parseJson(ref.schema, `referenced schema "${ref.name}"`);
    refs.set(ref.name, refDocument);
    try {
      ajv.addSchema(refDocument as AnySchema, ref.name);
    } catch (error) {
      throw invalidSchema(`referenced schema "${ref.name}" is invalid (${(error as Error).message})`);
    }
  }
  let validate: ReturnType<Ajv["compile"]>;
  try {
    validate = ajv.compile(document as AnySchema);
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
  return {
    schemaType: "JSON",
    canonical: JSON.stringify(document),
    normalized: sortedJson(document),
    handle: {
      document,
      references: refs,
      validate: (value) => validate(value) as boolean,
      errors: () => ajv.errorsText(validate.errors),
    },
  };
}

function readIssues(
  reader: ParsedSchema<JsonSchemaHandle>,
  writer: ParsedSchema<JsonSchemaHandle>,
): Incompatibility[] {
  return compareJsonSchemas(
    { document: writer.handle.document, references: writer.handle.references },
    { document: reader.handle.document, references: reader.handle.references },
  );
}

export const jsonSchemaFormat: SchemaFormat<JsonSchemaHandle> = { schemaType: "JSON", parse, readIssues };
