/**
 * Confluent's Protobuf difference types that keep data readable (its protobuf diff's
 * COMPATIBLE_CHANGES): unknown fields are skipped and missing ones default, so adding and removing
 * fields, messages, enums and enum constants is fine. Every other difference is an incompatibility.
 */
export const PROTOBUF_COMPATIBLE_CHANGES: ReadonlySet<string> = new Set([
  "MESSAGE_ADDED",
  "MESSAGE_MOVED",
  "ENUM_ADDED",
  "ENUM_REMOVED",
  "ENUM_CONST_ADDED",
  "ENUM_CONST_CHANGED",
  "ENUM_CONST_REMOVED",
  "FIELD_ADDED",
  "FIELD_REMOVED",
  "FIELD_NAME_CHANGED",
  "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
  "ONEOF_ADDED",
  "ONEOF_REMOVED",
  "ONEOF_FIELD_ADDED",
  "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
]);

const DESCRIPTIONS: Record<string, (location: string) => string> = {
  PACKAGE_CHANGED: (at) =>
    `the package at "${at}" of the reader schema differs from that of the writer schema`,
  MESSAGE_REMOVED: (at) => `the reader schema lacks the message at "${at}" of the writer schema`,
  FIELD_KIND_CHANGED: (at) => `the field at "${at}" changed between scalar, message and map`,
  FIELD_SCALAR_KIND_CHANGED: (at) => `the scalar field at "${at}" changed to a type of another wire encoding`,
  FIELD_NAMED_TYPE_CHANGED: (at) =>
    `the message field at "${at}" changed to another, incompatible message type`,
  FIELD_NUMERIC_LABEL_CHANGED: (at) => `the numeric field at "${at}" changed between optional and repeated`,
  REQUIRED_FIELD_ADDED: (at) => `the reader schema has a required field at "${at}" the writer schema lacks`,
  REQUIRED_FIELD_REMOVED: (at) =>
    `the reader schema lacks the required field at "${at}" of the writer schema`,
  ONEOF_FIELD_REMOVED: (at) => `the reader schema lacks the oneof field at "${at}" of the writer schema`,
  MULTIPLE_FIELDS_MOVED_TO_ONEOF: (at) =>
    `several fields independent in the writer schema are in the oneof of the reader schema at "${at}"`,
  FIELD_MOVED_TO_EXISTING_ONEOF: (at) =>
    `a field independent of the others in the writer schema is in the oneof of the reader schema at "${at}"`,
};

/** What a difference means for the data (reader: the schema reading it; writer: the one it was written with). */
export function describeProtobufChange(type: string, location: string): string {
  return DESCRIPTIONS[type]?.(location) ?? `${type.toLowerCase().replace(/_/g, " ")} at "${location}"`;
}
