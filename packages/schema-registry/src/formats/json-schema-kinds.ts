import type { JsonSchemaNode, Schema } from "./json-schema-diff-context";

export type Criterion = "allOf" | "anyOf" | "oneOf";
export type Kind =
  | "false"
  | "empty"
  | "combined"
  | "not"
  | "enum"
  | "const"
  | "object"
  | "array"
  | "string"
  | "number"
  | "boolean"
  | "null";

/** A schema as the diff sees it: one kind, or a combination of subschemas. */
export type SchemaView =
  | { kind: "combined"; criterion: Criterion; subschemas: JsonSchemaNode[]; schema: Schema }
  | { kind: Exclude<Kind, "combined">; schema: Schema };

const CRITERIA: readonly Criterion[] = ["allOf", "anyOf", "oneOf"];

/** The keywords that make a schema without `type` one of these kinds (Confluent's loader sniffs them). */
const SNIFFED_KEYWORDS: readonly [Kind, readonly string[]][] = [
  [
    "object",
    [
      "properties",
      "required",
      "additionalProperties",
      "patternProperties",
      "minProperties",
      "maxProperties",
      "dependencies",
      "dependentRequired",
      "dependentSchemas",
      "propertyNames",
      "unevaluatedProperties",
    ],
  ],
  [
    "array",
    [
      "items",
      "prefixItems",
      "additionalItems",
      "minItems",
      "maxItems",
      "uniqueItems",
      "contains",
      "minContains",
      "maxContains",
      "unevaluatedItems",
    ],
  ],
  ["string", ["minLength", "maxLength", "pattern", "format"]],
  ["number", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]],
];

const TYPE_KINDS: Record<string, Kind> = {
  object: "object",
  array: "array",
  string: "string",
  number: "number",
  integer: "number",
  boolean: "boolean",
  null: "null",
};

/** Keywords that shape a kind of their own: a schema with several of them is their allOf. */
const SHAPING = new Set(["enum", "const", "not", "type", ...CRITERIA]);

/** Keywords that describe a schema rather than constrain it: compared once, on the whole schema. */
const ANNOTATIONS = new Set([
  "$id",
  "id",
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "definitions",
  "$defs",
]);

function pick(schema: Schema, keys: readonly string[]): Schema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => keys.includes(key)));
}

function typedNode(schema: Schema, type: string): Schema {
  const own = Object.entries(schema).filter(([key]) => !SHAPING.has(key) && !ANNOTATIONS.has(key));
  return { ...Object.fromEntries(own), type };
}

/**
 * The kinds a schema object holds, as Confluent's JSON Schema loader splits it: an enum, each
 * combinator, a not, a const, the `type` (several types: their anyOf), or, without `type`, the kinds
 * its keywords imply. Each part is a schema of its own holding only its keywords.
 */
function parts(schema: Schema): SchemaView[] {
  const found: SchemaView[] = [];
  if (Array.isArray(schema.enum)) found.push({ kind: "enum", schema: { enum: schema.enum } });
  for (const criterion of CRITERIA) {
    const subschemas = schema[criterion];
    if (Array.isArray(subschemas))
      found.push({ kind: "combined", criterion, subschemas, schema: { [criterion]: subschemas } });
  }
  if ("not" in schema) found.push({ kind: "not", schema: { not: schema.not } });
  if ("const" in schema) found.push({ kind: "const", schema: { const: schema.const } });
  const types =
    typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : null;
  const known = (types ?? []).map(String).filter((type) => type in TYPE_KINDS);
  if (known.length === 1) {
    found.push({ kind: TYPE_KINDS[known[0]!]!, schema: typedNode(schema, known[0]!) } as SchemaView);
  } else if (known.length > 1) {
    const subschemas = known.map((type) => typedNode(schema, type));
    found.push({ kind: "combined", criterion: "anyOf", subschemas, schema: { anyOf: subschemas } });
  } else if (!types) {
    for (const [kind, keywords] of SNIFFED_KEYWORDS) {
      if (keywords.some((k) => k in schema))
        found.push({ kind, schema: pick(schema, keywords) } as SchemaView);
    }
  }
  return found;
}

/** How the diff sees a (dereferenced) schema: one part is its kind, several are their allOf. */
export function viewOf(node: JsonSchemaNode): SchemaView {
  if (node === false) return { kind: "false", schema: {} };
  if (node === true) return { kind: "empty", schema: {} };
  const found = parts(node);
  if (found.length === 0) return { kind: "empty", schema: node };
  // One part is the schema itself (its keywords are all that part's); several are a synthetic allOf.
  if (found.length === 1) return { ...found[0]!, schema: node } as SchemaView;
  return { kind: "combined", criterion: "allOf", subschemas: found.map((part) => part.schema), schema: node };
}

/** `true`, `{}` or a schema of annotations only: it accepts anything. */
export function isEmptySchema(node: JsonSchemaNode | undefined): boolean {
  if (node === undefined || node === false) return false;
  if (node === true) return true;
  return !("$ref" in node) && viewOf(node).kind === "empty";
}
