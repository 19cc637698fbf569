import type { ResolvedReference } from "../src/index";
import type { DifferenceRow } from "./json-schema-difference-rows";

/**
 * One row per difference type Confluent's Protobuf diff names (its Difference.Type): a file pair that
 * shows it and whether the update still reads the original's data (its COMPATIBLE_CHANGES).
 */
export interface ProtobufDifferenceRow extends DifferenceRow {
  before: string;
  after: string;
  beforeReferences?: ResolvedReference[];
  afterReferences?: ResolvedReference[];
}

const proto3 = (body: string, pkg = "acme") => `syntax = "proto3";\npackage ${pkg};\n${body}\n`;
const proto2 = (body: string) => `syntax = "proto2";\npackage acme;\n${body}\n`;
const imported = (body: string): ResolvedReference[] => [
  { name: "shared/address.proto", schemaType: "PROTOBUF", schema: proto3(body, "shared"), references: [] },
];
const USES_ADDRESS = proto3('import "shared/address.proto";\nmessage User { shared.Address home = 1; }');

export const PROTOBUF_DIFFERENCE_ROWS: ProtobufDifferenceRow[] = [
  {
    type: "PACKAGE_CHANGED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { int32 n = 1; }", "other"),
    compatible: false,
  },
  {
    type: "MESSAGE_ADDED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { int32 n = 1; }\nmessage Extra { int32 n = 1; }"),
    compatible: true,
  },
  {
    type: "MESSAGE_REMOVED",
    before: proto3("message User { int32 n = 1; }\nmessage Extra { int32 n = 1; }"),
    after: proto3("message User { int32 n = 1; }"),
    compatible: false,
  },
  {
    type: "MESSAGE_MOVED",
    before: proto3("message User { int32 n = 1; }\nmessage Extra { int32 n = 1; }"),
    after: proto3("message Extra { int32 n = 1; }\nmessage User { int32 n = 1; }"),
    compatible: true,
  },
  {
    type: "ENUM_ADDED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { int32 n = 1; }\nenum Color { RED = 0; }"),
    compatible: true,
  },
  {
    type: "ENUM_REMOVED",
    before: proto3("message User { int32 n = 1; }\nenum Color { RED = 0; }"),
    after: proto3("message User { int32 n = 1; }"),
    compatible: true,
  },
  {
    type: "ENUM_CONST_ADDED",
    before: proto3("enum Color { RED = 0; }"),
    after: proto3("enum Color { RED = 0; BLUE = 1; }"),
    compatible: true,
  },
  {
    type: "ENUM_CONST_CHANGED",
    before: proto3("enum Color { RED = 0; BLUE = 1; }"),
    after: proto3("enum Color { RED = 0; NAVY = 1; }"),
    compatible: true,
  },
  {
    type: "ENUM_CONST_REMOVED",
    before: proto3("enum Color { RED = 0; BLUE = 1; }"),
    after: proto3("enum Color { RED = 0; }"),
    compatible: true,
  },
  {
    type: "FIELD_ADDED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { int32 n = 1; string s = 2; }"),
    compatible: true,
  },
  {
    type: "FIELD_REMOVED",
    before: proto3("message User { int32 n = 1; string s = 2; }"),
    after: proto3("message User { int32 n = 1; }"),
    compatible: true,
  },
  {
    type: "FIELD_NAME_CHANGED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { int32 count = 1; }"),
    compatible: true,
  },
  {
    type: "FIELD_KIND_CHANGED",
    before: proto3("message User { int32 n = 1; }\nmessage Inner { int32 v = 1; }"),
    after: proto3("message User { Inner n = 1; }\nmessage Inner { int32 v = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_KIND_CHANGED",
    before: proto3("message User { map<string, int32> n = 1; }"),
    after: proto3("message User { repeated int32 n = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_SCALAR_KIND_CHANGED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { sint32 n = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_SCALAR_KIND_CHANGED",
    before: proto3("message User { map<string, int32> n = 1; }"),
    after: proto3("message User { map<string, string> n = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_NAMED_TYPE_CHANGED",
    before: proto3("message User { A n = 1; }\nmessage A { int32 v = 1; }\nmessage B { int32 v = 1; }"),
    after: proto3("message User { B n = 1; }\nmessage A { int32 v = 1; }\nmessage B { int32 v = 1; }"),
    compatible: false,
  },
  {
    // The imported message changed incompatibly: Confluent compares it under its own name too.
    type: "FIELD_NAMED_TYPE_CHANGED",
    before: USES_ADDRESS,
    beforeReferences: imported("message Address { int32 zip = 1; }"),
    after: USES_ADDRESS,
    afterReferences: imported("message Address { string zip = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_NUMERIC_LABEL_CHANGED",
    before: proto3("message User { optional int32 n = 1; }"),
    after: proto3("message User { repeated int32 n = 1; }"),
    compatible: false,
  },
  {
    type: "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
    before: proto3("message User { optional string s = 1; }"),
    after: proto3("message User { repeated string s = 1; }"),
    compatible: true,
  },
  {
    type: "REQUIRED_FIELD_ADDED",
    before: proto2("message User { optional int32 n = 1; }"),
    after: proto2("message User { optional int32 n = 1; required int32 m = 2; }"),
    compatible: false,
  },
  {
    type: "REQUIRED_FIELD_REMOVED",
    before: proto2("message User { optional int32 n = 1; required int32 m = 2; }"),
    after: proto2("message User { optional int32 n = 1; }"),
    compatible: false,
  },
  {
    type: "ONEOF_ADDED",
    before: proto3("message User { int32 n = 1; }"),
    after: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    compatible: true,
  },
  {
    type: "ONEOF_REMOVED",
    before: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    after: proto3("message User { int32 other = 3; }"),
    compatible: true,
  },
  {
    type: "ONEOF_FIELD_ADDED",
    before: proto3("message User { oneof choice { int32 n = 1; } }"),
    after: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    compatible: true,
  },
  {
    type: "ONEOF_FIELD_REMOVED",
    before: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    after: proto3("message User { oneof choice { int32 n = 1; } }"),
    compatible: false,
  },
  {
    type: "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
    before: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    after: proto3("message User { oneof choice { int32 n = 1; } string s = 2; }"),
    compatible: true,
  },
  {
    type: "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
    before: proto3("message User { int32 n = 1; string s = 2; }"),
    after: proto3("message User { oneof choice { int32 n = 1; string s = 2; } }"),
    compatible: false,
  },
  {
    type: "FIELD_MOVED_TO_EXISTING_ONEOF",
    before: proto3("message User { int32 n = 1; oneof choice { string s = 2; bytes b = 3; } }"),
    after: proto3("message User { oneof choice { int32 n = 1; string s = 2; bytes b = 3; } }"),
    compatible: false,
  },
];

/** Every type Confluent's Protobuf diff names. */
export const CONFLUENT_PROTOBUF_DIFFERENCE_TYPES = [
  "PACKAGE_CHANGED",
  "MESSAGE_ADDED",
  "MESSAGE_REMOVED",
  "MESSAGE_MOVED",
  "ENUM_ADDED",
  "ENUM_REMOVED",
  "ENUM_CONST_ADDED",
  "ENUM_CONST_CHANGED",
  "ENUM_CONST_REMOVED",
  "FIELD_ADDED",
  "FIELD_REMOVED",
  "FIELD_NAME_CHANGED",
  "FIELD_KIND_CHANGED",
  "FIELD_SCALAR_KIND_CHANGED",
  "FIELD_NAMED_TYPE_CHANGED",
  "FIELD_NUMERIC_LABEL_CHANGED",
  "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
  "REQUIRED_FIELD_ADDED",
  "REQUIRED_FIELD_REMOVED",
  "ONEOF_ADDED",
  "ONEOF_REMOVED",
  "ONEOF_FIELD_ADDED",
  "ONEOF_FIELD_REMOVED",
  "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
  "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
  "FIELD_MOVED_TO_EXISTING_ONEOF",
];
