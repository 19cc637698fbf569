import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSchemaDifferences } from "../src/formats/json-schema-diff";
import type { JsonSchemaHandle } from "../src/formats/json-schema-format";
import { protobufDifferences } from "../src/formats/protobuf-diff";
import type { ProtobufHandle } from "../src/formats/protobuf-format";
import {
  COMPATIBILITY_LEVELS,
  type CompatibilityLevel,
  compatibilityIssues,
  matchRegistryRoute,
  type ParsedSchema,
  parseSchema,
  SchemaRegistry,
  type SchemaType,
} from "../src/index";
import {
  CONFLUENT_JSON_SCHEMA_DIFFERENCE_TYPES,
  JSON_SCHEMA_DIFFERENCE_ROWS,
} from "./json-schema-difference-rows";
import { MemoryLog } from "./memory-log";
import { CONFLUENT_PROTOBUF_DIFFERENCE_TYPES, PROTOBUF_DIFFERENCE_ROWS } from "./protobuf-difference-rows";

/**
 * One row per schema change: whether a reader with the new schema reads data of the old one
 * (backward) and the reverse (forward), as Confluent's checkers decide, and the difference type
 * Confluent names when it does not. Every level's answer follows from the two.
 */
interface Change {
  name: string;
  type: SchemaType;
  before: unknown;
  after: unknown;
  backward: true | string;
  forward: true | string;
}

const record = (fields: unknown[], name = "User") => ({ type: "record", name, namespace: "acme", fields });
const proto = (body: string, pkg = "acme") => `syntax = "proto3";\npackage ${pkg};\n${body}\n`;
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

const CHANGES: Change[] = [
  {
    name: "field added with a default",
    type: "AVRO",
    before: record([{ name: "id", type: "string" }]),
    after: record([
      { name: "id", type: "string" },
      { name: "age", type: "int", default: 0 },
    ]),
    backward: true,
    forward: true,
  },
  {
    name: "field added without a default",
    type: "AVRO",
    before: record([{ name: "id", type: "string" }]),
    after: record([
      { name: "id", type: "string" },
      { name: "age", type: "int" },
    ]),
    backward: "READER_FIELD_MISSING_DEFAULT_VALUE",
    forward: true,
  },
  {
    name: "field without a default removed",
    type: "AVRO",
    before: record([
      { name: "id", type: "string" },
      { name: "age", type: "int" },
    ]),
    after: record([{ name: "id", type: "string" }]),
    backward: true,
    forward: "READER_FIELD_MISSING_DEFAULT_VALUE",
  },
  {
    name: "int promoted to long",
    type: "AVRO",
    before: record([{ name: "n", type: "int" }]),
    after: record([{ name: "n", type: "long" }]),
    backward: true,
    forward: "TYPE_MISMATCH",
  },
  {
    name: "record renamed",
    type: "AVRO",
    before: record([{ name: "n", type: "int" }]),
    after: record([{ name: "n", type: "int" }], "Person"),
    backward: "NAME_MISMATCH",
    forward: "NAME_MISMATCH",
  },
  {
    name: "enum symbol added",
    type: "AVRO",
    before: { type: "enum", name: "Color", symbols: ["RED"] },
    after: { type: "enum", name: "Color", symbols: ["RED", "BLUE"] },
    backward: true,
    forward: "MISSING_ENUM_SYMBOLS",
  },
  {
    name: "string changed to int",
    type: "AVRO",
    before: record([{ name: "n", type: "string" }]),
    after: record([{ name: "n", type: "int" }]),
    backward: "TYPE_MISMATCH",
    forward: "TYPE_MISMATCH",
  },

  {
    name: "field added",
    type: "PROTOBUF",
    before: proto("message User { string id = 1; }"),
    after: proto("message User { string id = 1; int32 age = 2; }"),
    backward: true,
    forward: true,
  },
  {
    name: "field removed",
    type: "PROTOBUF",
    before: proto("message User { string id = 1; int32 age = 2; }"),
    after: proto("message User { string id = 1; }"),
    backward: true,
    forward: true,
  },
  {
    name: "int32 widened to int64 (one varint group)",
    type: "PROTOBUF",
    before: proto("message User { int32 n = 1; }"),
    after: proto("message User { int64 n = 1; }"),
    backward: true,
    forward: true,
  },
  {
    name: "string to bytes",
    type: "PROTOBUF",
    before: proto("message User { string n = 1; }"),
    after: proto("message User { bytes n = 1; }"),
    backward: true,
    forward: true,
  },
  {
    name: "int32 to string",
    type: "PROTOBUF",
    before: proto("message User { int32 n = 1; }"),
    after: proto("message User { string n = 1; }"),
    backward: "FIELD_SCALAR_KIND_CHANGED",
    forward: "FIELD_SCALAR_KIND_CHANGED",
  },
  {
    name: "scalar to message",
    type: "PROTOBUF",
    before: proto("message User { int32 n = 1; }\nmessage Inner { int32 v = 1; }"),
    after: proto("message User { Inner n = 1; }\nmessage Inner { int32 v = 1; }"),
    backward: "FIELD_KIND_CHANGED",
    forward: "FIELD_KIND_CHANGED",
  },
  {
    name: "package changed",
    type: "PROTOBUF",
    before: proto("message User { int32 n = 1; }"),
    after: proto("message User { int32 n = 1; }", "other"),
    backward: "PACKAGE_CHANGED",
    forward: "PACKAGE_CHANGED",
  },
  {
    name: "message removed",
    type: "PROTOBUF",
    before: proto("message User { int32 n = 1; }\nmessage Extra { int32 n = 1; }"),
    after: proto("message User { int32 n = 1; }"),
    backward: "MESSAGE_REMOVED",
    forward: true,
  },
  {
    name: "two fields moved into a oneof",
    type: "PROTOBUF",
    before: proto("message User { int32 a = 1; string b = 2; }"),
    after: proto("message User { oneof choice { int32 a = 1; string b = 2; } }"),
    backward: "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
    forward: true,
  },
  {
    name: "a field moved into an existing oneof",
    type: "PROTOBUF",
    before: proto("message User { int32 a = 1; oneof choice { string b = 2; bytes c = 3; } }"),
    after: proto("message User { oneof choice { int32 a = 1; string b = 2; bytes c = 3; } }"),
    backward: "FIELD_MOVED_TO_EXISTING_ONEOF",
    forward: true,
  },
  {
    name: "a numeric field made repeated",
    type: "PROTOBUF",
    before: proto("message User { optional int32 n = 1; }"),
    after: proto("message User { repeated int32 n = 1; }"),
    backward: "FIELD_NUMERIC_LABEL_CHANGED",
    forward: "FIELD_NUMERIC_LABEL_CHANGED",
  },
  {
    name: "a oneof member removed",
    type: "PROTOBUF",
    before: proto("message User { oneof choice { int32 a = 1; string b = 2; } }"),
    after: proto("message User { oneof choice { int32 a = 1; } }"),
    backward: "ONEOF_FIELD_REMOVED",
    forward: true,
  },

  {
    name: "property added to an open content model",
    type: "JSON",
    before: object({ a: { type: "string" } }),
    after: object({ a: { type: "string" }, b: { type: "number" } }),
    backward: "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
    forward: true,
  },
  {
    name: "optional property added to a closed content model",
    type: "JSON",
    before: object({ a: { type: "string" } }, { additionalProperties: false }),
    after: object({ a: { type: "string" }, b: { type: "number" } }, { additionalProperties: false }),
    backward: true,
    forward: "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  },
  {
    name: "integer widened to number",
    type: "JSON",
    before: object({ n: { type: "integer" } }),
    after: object({ n: { type: "number" } }),
    backward: true,
    forward: "TYPE_NARROWED",
  },
  {
    name: "maxLength lowered",
    type: "JSON",
    before: object({ s: { type: "string", maxLength: 10 } }),
    after: object({ s: { type: "string", maxLength: 5 } }),
    backward: "MAX_LENGTH_DECREASED",
    forward: true,
  },
  {
    name: "multipleOf made a multiple of the old step",
    type: "JSON",
    before: object({ n: { type: "number", multipleOf: 2 } }),
    after: object({ n: { type: "number", multipleOf: 4 } }),
    backward: "MULTIPLE_OF_EXPANDED",
    forward: true,
  },
  {
    name: "oneOf relaxed to anyOf",
    type: "JSON",
    before: { oneOf: [{ type: "string" }, { type: "number" }] },
    after: { anyOf: [{ type: "string" }, { type: "number" }] },
    backward: true,
    forward: "COMBINED_TYPE_CHANGED",
  },
  {
    name: "additional properties closed",
    type: "JSON",
    before: object({ a: { type: "string" } }),
    after: object({ a: { type: "string" } }, { additionalProperties: false }),
    backward: "ADDITIONAL_PROPERTIES_REMOVED",
    forward: true,
  },
  {
    name: "a tuple item added to an open array",
    type: "JSON",
    before: { type: "array", items: [{ type: "string" }] },
    after: { type: "array", items: [{ type: "string" }, { type: "number" }] },
    backward: "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
    forward: true,
  },
  {
    name: "enum value added",
    type: "JSON",
    before: { enum: ["a"] },
    after: { enum: ["a", "b"] },
    backward: true,
    forward: "ENUM_ARRAY_NARROWED",
  },
  {
    name: "string changed to number",
    type: "JSON",
    before: object({ n: { type: "string" } }),
    after: object({ n: { type: "number" } }),
    backward: "TYPE_CHANGED",
    forward: "TYPE_CHANGED",
  },
  {
    name: "property made required without a default",
    type: "JSON",
    before: object({ a: { type: "string" } }, { additionalProperties: false }),
    after: object({ a: { type: "string" } }, { additionalProperties: false, required: ["a"] }),
    backward: "REQUIRED_ATTRIBUTE_ADDED",
    forward: true,
  },
  {
    name: "anyOf branch added",
    type: "JSON",
    before: { anyOf: [{ type: "string" }, { type: "number" }] },
    after: { anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }] },
    backward: true,
    forward: "SUM_TYPE_NARROWED",
  },
  {
    name: "a $ref'd definition changes type",
    type: "JSON",
    before: object({ a: { $ref: "#/definitions/A" } }, { definitions: { A: { type: "string" } } }),
    after: object({ a: { $ref: "#/definitions/A" } }, { definitions: { A: { type: "integer" } } }),
    backward: "TYPE_CHANGED",
    forward: "TYPE_CHANGED",
  },
];

const text = (schema: unknown) => (typeof schema === "string" ? schema : JSON.stringify(schema));

function expected(change: Change, level: CompatibilityLevel): string[] {
  if (level === "NONE") return [];
  const out: string[] = [];
  if ((level.startsWith("BACKWARD") || level.startsWith("FULL")) && change.backward !== true)
    out.push(change.backward);
  if ((level.startsWith("FORWARD") || level.startsWith("FULL")) && change.forward !== true)
    out.push(change.forward);
  return out;
}

describe("compatibility, per format and level, as Confluent decides", () => {
  for (const change of CHANGES) {
    for (const level of COMPATIBILITY_LEVELS) {
      it(`${change.type}: ${change.name} — ${level}`, () => {
        const before = parseSchema(change.type, text(change.before), []);
        const after = parseSchema(change.type, text(change.after), []);
        const types = [...new Set(compatibilityIssues(level, after, [before]).map((i) => i.type))];
        expect(types.sort()).toEqual([...new Set(expected(change, level))].sort());
      });
    }
  }

  it("a transitive level checks every earlier version, a plain one only the latest", () => {
    // v1 → v2 adds a defaulted field, v2 → v3 drops the default: each step is backward, v1 → v3 is not.
    const v1 = parseSchema("AVRO", text(record([{ name: "id", type: "string" }])), []);
    const v2 = parseSchema(
      "AVRO",
      text(
        record([
          { name: "id", type: "string" },
          { name: "age", type: "int", default: 0 },
        ]),
      ),
      [],
    );
    const v3 = parseSchema(
      "AVRO",
      text(
        record([
          { name: "id", type: "string" },
          { name: "age", type: "int" },
        ]),
      ),
      [],
    );
    expect(compatibilityIssues("BACKWARD", v3, [v1, v2])).toEqual([]);
    expect(compatibilityIssues("BACKWARD_TRANSITIVE", v3, [v1, v2]).map((i) => i.type)).toEqual([
      "READER_FIELD_MISSING_DEFAULT_VALUE",
    ]);
  });

  it("a change of schema type is never compatible, except at NONE", () => {
    const avro = parseSchema("AVRO", '"string"', []);
    const json = parseSchema("JSON", '{"type":"string"}', []);
    expect(compatibilityIssues("BACKWARD", json, [avro]).map((i) => i.type)).toEqual(["TYPE_MISMATCH"]);
    expect(compatibilityIssues("NONE", json, [avro])).toEqual([]);
  });
});

const typesOf = (issues: readonly { type: string }[]) => [...new Set(issues.map((i) => i.type))];

describe("JSON Schema: one row per difference Confluent names", () => {
  it("covers every difference type of Confluent's JSON Schema diff", () => {
    const covered = new Set(JSON_SCHEMA_DIFFERENCE_ROWS.map((row) => row.type));
    expect(CONFLUENT_JSON_SCHEMA_DIFFERENCE_TYPES.filter((type) => !covered.has(type))).toEqual([]);
  });

  for (const row of JSON_SCHEMA_DIFFERENCE_ROWS) {
    it(`${row.type}: ${JSON.stringify(row.before)} → ${JSON.stringify(row.after)} is ${row.compatible ? "compatible" : "refused"} under BACKWARD`, () => {
      const before = parseSchema("JSON", text(row.before), []) as ParsedSchema<JsonSchemaHandle>;
      const after = parseSchema("JSON", text(row.after), []) as ParsedSchema<JsonSchemaHandle>;
      const differences = jsonSchemaDifferences(before.handle, after.handle);
      expect(typesOf(differences)).toContain(row.type);
      const issues = typesOf(compatibilityIssues("BACKWARD", after, [before]));
      if (row.compatible) expect(issues).toEqual([]);
      else expect(issues).toContain(row.type);
    });
  }

  it("a recursive schema compares to a fixed point: unchanged is compatible, a change deep in it is found", () => {
    const tree = (leaf: unknown) => ({
      definitions: {
        node: {
          type: "object",
          properties: { value: leaf, children: { type: "array", items: { $ref: "#/definitions/node" } } },
        },
      },
      $ref: "#/definitions/node",
    });
    const v1 = parseSchema("JSON", text(tree({ type: "integer" })), []);
    const widened = parseSchema("JSON", text(tree({ type: "number" })), []);
    expect(compatibilityIssues("FULL", v1, [v1])).toEqual([]);
    expect(compatibilityIssues("BACKWARD", widened, [v1])).toEqual([]);
    expect(compatibilityIssues("FORWARD", widened, [v1])).toEqual([
      expect.objectContaining({ type: "TYPE_NARROWED", location: "#/properties/value" }),
    ]);
  });

  it("a transitive level finds what each step hid: a default dropped after a property became required", () => {
    const closed = (a: unknown, required: string[] = []) => ({
      type: "object",
      properties: { a },
      required,
      additionalProperties: false,
    });
    const v1 = parseSchema("JSON", text(closed({ type: "string" })), []);
    const v2 = parseSchema("JSON", text(closed({ type: "string", default: "x" }, ["a"])), []);
    const v3 = parseSchema("JSON", text(closed({ type: "string" }, ["a"])), []);
    expect(compatibilityIssues("BACKWARD", v3, [v1, v2])).toEqual([]);
    expect(typesOf(compatibilityIssues("BACKWARD_TRANSITIVE", v3, [v1, v2]))).toEqual([
      "REQUIRED_ATTRIBUTE_ADDED",
    ]);
  });
});

/** JSON Schemas of every kind the diff knows, nested a few levels (fast-check). */
const { schema: arbitrarySchema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<unknown>(true, false, {}, { type: "boolean" }, { type: "null" }),
    fc.record(
      {
        type: fc.constant("string"),
        maxLength: fc.nat(8),
        minLength: fc.nat(3),
        pattern: fc.constantFrom("^a", "^b"),
        title: fc.constantFrom("t", "u"),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record(
      {
        type: fc.constantFrom("number", "integer"),
        minimum: fc.integer({ min: -5, max: 5 }),
        exclusiveMaximum: fc.integer({ min: 6, max: 9 }),
        multipleOf: fc.constantFrom(0.5, 1, 2, 3),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(fc.constantFrom("a", "b", "s_c"), tie("schema"), { maxKeys: 3 }),
        required: fc.subarray(["a", "b"]),
        patternProperties: fc.record({ "^s_": tie("schema") }),
        additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
        dependencies: fc.record(
          { a: fc.constantFrom(["b"], ["b", "s_c"]), b: tie("schema") },
          { requiredKeys: [] },
        ),
        maxProperties: fc.nat(4),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record(
      {
        type: fc.constant("array"),
        items: fc.oneof(tie("schema"), fc.array(tie("schema"), { minLength: 1, maxLength: 3 })),
        additionalItems: fc.oneof(fc.boolean(), tie("schema")),
        minItems: fc.nat(3),
        uniqueItems: fc.boolean(),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record({
      enum: fc.uniqueArray(fc.constantFrom<unknown>("x", "y", 1, null, { k: 1 }), { minLength: 1 }),
    }),
    fc.record({ const: fc.constantFrom<unknown>("x", 2, [1]) }),
    fc.record({ type: fc.subarray(["string", "number", "null", "object"], { minLength: 2 }) }),
    fc
      .record({
        criterion: fc.constantFrom("allOf", "anyOf", "oneOf"),
        branches: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }),
      })
      .map(({ criterion, branches }) => ({ [criterion]: branches })),
    fc.record({ not: tie("schema") }),
    fc.record({ type: fc.constant("string"), enum: fc.constant(["x", "y"]) }),
  ),
}));

describe("JSON Schema properties (fast-check)", () => {
  const parse = (schema: unknown) => parseSchema("JSON", text(schema), []);

  it("every schema is FULL-compatible with a fresh parse of itself", () => {
    fc.assert(
      fc.property(arbitrarySchema, (schema) => {
        expect(compatibilityIssues("FULL", parse(schema), [parse(schema)])).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("the empty schema reads anything, and anything reads the data of false", () => {
    fc.assert(
      fc.property(arbitrarySchema, (schema) => {
        expect(compatibilityIssues("BACKWARD", parse(true), [parse(schema)])).toEqual([]);
        expect(compatibilityIssues("BACKWARD", parse(schema), [parse(false)])).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("a schema that is not itself a combination stays BACKWARD-compatible as one branch of an anyOf", () => {
    // Confluent matches a combination branch to branch, so this holds for a plain schema only (a
    // `type` with an `enum` is already the allOf of the two).
    const combination = (s: unknown) =>
      typeof s === "object" &&
      s !== null &&
      ("allOf" in s ||
        "anyOf" in s ||
        "oneOf" in s ||
        Array.isArray((s as { type?: unknown }).type) ||
        ("enum" in s && "type" in s));
    fc.assert(
      fc.property(arbitrarySchema, arbitrarySchema, (schema, other) => {
        fc.pre(!combination(schema));
        const widened = parse({ anyOf: [schema, other] });
        expect(compatibilityIssues("BACKWARD", widened, [parse(schema)])).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("Protobuf: one row per difference Confluent names", () => {
  it("covers every difference type of Confluent's Protobuf diff", () => {
    const covered = new Set(PROTOBUF_DIFFERENCE_ROWS.map((row) => row.type));
    expect(CONFLUENT_PROTOBUF_DIFFERENCE_TYPES.filter((type) => !covered.has(type))).toEqual([]);
  });

  for (const row of PROTOBUF_DIFFERENCE_ROWS) {
    const where = row.beforeReferences ? " (an imported message)" : "";
    it(`${row.type}${where}: ${row.before.split("\n")[2]} → ${row.after.split("\n")[2]} is ${row.compatible ? "compatible" : "refused"} under BACKWARD`, () => {
      const before = parseSchema(
        "PROTOBUF",
        row.before,
        row.beforeReferences ?? [],
      ) as ParsedSchema<ProtobufHandle>;
      const after = parseSchema(
        "PROTOBUF",
        row.after,
        row.afterReferences ?? [],
      ) as ParsedSchema<ProtobufHandle>;
      expect(typesOf(protobufDifferences(before.handle, after.handle))).toContain(row.type);
      const issues = typesOf(compatibilityIssues("BACKWARD", after, [before]));
      if (row.compatible) expect(issues).toEqual([]);
      else expect(issues).toContain(row.type);
    });
  }

  it("a transitive level finds what each step hid: a field removed, then its tag reused with another type", () => {
    const v1 = parseSchema("PROTOBUF", proto("message User { int32 a = 1; }"), []);
    const v2 = parseSchema("PROTOBUF", proto("message User { }"), []);
    const v3 = parseSchema("PROTOBUF", proto("message User { string a = 1; }"), []);
    expect(compatibilityIssues("FULL", v3, [v1, v2])).toEqual([]);
    expect(typesOf(compatibilityIssues("FULL_TRANSITIVE", v3, [v1, v2]))).toEqual([
      "FIELD_SCALAR_KIND_CHANGED",
    ]);
  });
});

/** A Protobuf field as the generator draws it: its type, label, whether a map value, whether in the oneof. */
interface ProtoField {
  type: string;
  label: "" | "optional " | "repeated ";
  map: boolean;
}

// Each scalar (and the enum) with its wire group; "Inner" is a message.
const PROTO_TYPES: Record<string, string> = {
  int32: "varint",
  int64: "varint",
  uint32: "varint",
  bool: "varint",
  Color: "varint",
  sint32: "zigzag",
  sint64: "zigzag",
  string: "length",
  bytes: "length",
  fixed32: "fixed32",
  sfixed32: "fixed32",
  sfixed64: "fixed64",
  float: "float",
  double: "double",
  Inner: "message",
};

const protoFieldArb = fc.record({
  type: fc.constantFrom(...Object.keys(PROTO_TYPES)),
  label: fc.constantFrom<ProtoField["label"]>("", "optional ", "repeated "),
  map: fc.boolean(),
});
const protoFileArb = fc.record({
  fields: fc.array(protoFieldArb, { minLength: 1, maxLength: 6 }),
  inOneof: fc.nat(3),
});

/** The file: the last `inOneof` fields in a oneof (no labels, no maps there), tags 1…n in order. */
function renderProto(fields: readonly ProtoField[], inOneof: number): string {
  const split = Math.max(0, fields.length - inOneof);
  const line = (f: ProtoField, tag: number, oneof: boolean) =>
    oneof
      ? `${f.type} f${tag} = ${tag};`
      : f.map
        ? `map<string, ${f.type}> f${tag} = ${tag};`
        : `${f.label}${f.type} f${tag} = ${tag};`;
  const plain = fields.slice(0, split).map((f, i) => line(f, i + 1, false));
  const oneof = fields.slice(split).map((f, i) => line(f, split + i + 1, true));
  const choice = oneof.length > 0 ? `oneof choice { ${oneof.join(" ")} }` : "";
  return proto(
    `message Event { ${plain.join(" ")} ${choice} message Inner { int32 v = 1; } }\nenum Color { RED = 0; BLUE = 1; }`,
  );
}

describe("Protobuf properties (fast-check)", () => {
  const parse = (text: string) => parseSchema("PROTOBUF", text, []);

  it("every file is FULL-compatible with a fresh parse of itself, and with a field added", () => {
    fc.assert(
      fc.property(protoFileArb, protoFieldArb, ({ fields, inOneof }, extra) => {
        const file = renderProto(fields, inOneof);
        expect(compatibilityIssues("FULL", parse(file), [parse(file)])).toEqual([]);
        // Outside the oneof, so with a tag of its own (the oneof's fields keep theirs only if it is empty).
        const grown = renderProto([...fields, { ...extra }], 0);
        const flat = renderProto(fields, 0);
        expect(compatibilityIssues("FULL", parse(grown), [parse(flat)])).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it("a field's type changes compatibly exactly within its wire group", () => {
    fc.assert(
      fc.property(
        protoFileArb,
        fc.nat(),
        fc.constantFrom(...Object.keys(PROTO_TYPES)),
        ({ fields, inOneof }, pick, type) => {
          const index = pick % fields.length;
          const changed = fields.map((f, i) => (i === index ? { ...f, type } : f));
          const issues = compatibilityIssues("BACKWARD", parse(renderProto(changed, inOneof)), [
            parse(renderProto(fields, inOneof)),
          ]);
          const sameGroup = PROTO_TYPES[fields[index]!.type] === PROTO_TYPES[type];
          if (sameGroup) expect(issues).toEqual([]);
          else expect(typesOf(issues)).toEqual([expect.stringMatching(/^FIELD_(SCALAR_)?KIND_CHANGED$/)]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the compatibility endpoint lists the differences (verbose=true)", () => {
  async function check(schemaType: SchemaType, v1: string, v2: string) {
    const registry = new SchemaRegistry(new MemoryLog());
    await registry.register("s", { schema: v1, schemaType, references: [] });
    const segments = ["compatibility", "subjects", "s", "versions", "latest"];
    const route = matchRegistryRoute("POST", segments);
    if (!route) throw new Error("no compatibility route");
    return route.run(registry, {
      method: "POST",
      segments,
      query: new URLSearchParams("verbose=true"),
      body: { schema: v2, schemaType },
    });
  }

  it("JSON Schema: each incompatible difference with its location", async () => {
    const v1 = JSON.stringify({ type: "object", properties: { a: { type: "string", maxLength: 10 } } });
    const v2 = JSON.stringify({
      type: "object",
      properties: { a: { type: "string", maxLength: 5 }, b: { type: "number" } },
    });
    const answer = await check("JSON", v1, v2);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      is_compatible: false,
      messages: [
        expect.stringMatching(
          /^\{errorType:'MAX_LENGTH_DECREASED', description:'.+', location:'#\/properties\/a\/maxLength'\}$/,
        ),
        expect.stringMatching(
          /^\{errorType:'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', .*location:'#\/properties\/b'\}$/,
        ),
      ],
    });
  });

  it("Protobuf: each incompatible difference with its location; compatible ones are not listed", async () => {
    const v1 = proto("message User { int32 a = 1; oneof choice { string b = 2; bytes c = 3; } }");
    const v2 = proto("message User { oneof choice { int32 a = 1; string b = 2; } int64 d = 4; }");
    const answer = await check("PROTOBUF", v1, v2);
    expect(answer.body).toEqual({
      is_compatible: false,
      messages: [
        expect.stringMatching(
          /^\{errorType:'FIELD_MOVED_TO_EXISTING_ONEOF', .*location:'#\/User\/choice'\}$/,
        ),
        expect.stringMatching(/^\{errorType:'ONEOF_FIELD_REMOVED', .*location:'#\/User\/choice\/3'\}$/),
      ],
    });
  });
});
