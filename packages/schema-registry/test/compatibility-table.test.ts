import { describe, expect, it } from "vitest";
import {
  COMPATIBILITY_LEVELS,
  type CompatibilityLevel,
  compatibilityIssues,
  parseSchema,
  type SchemaType,
} from "../src/index";

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
    name: "property added to an open content model",
    type: "JSON",
    before: object({ a: { type: "string" } }),
    after: object({ a: { type: "string" }, b: { type: "number" } }),
    backward: "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
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
    backward: "MAX_LENGTH_CHANGED",
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
