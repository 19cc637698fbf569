import protobuf from "protobufjs";

/** Records a difference at a location ("#/Message/tag"). */
export type AddDifference = (type: string, location: string) => void;

/**
 * Compares two same-named message types a field uses when either comes from an imported file (the
 * file's own messages are compared where they are declared): whether the original's data still reads.
 */
export type CompareImported = (before: protobuf.Type, after: protobuf.Type, localName: string) => boolean;

/** A field's type as the wire sees it. */
type FieldType =
  | { kind: "scalar"; group: string; name: string }
  | { kind: "message"; type: protobuf.Type }
  | { kind: "map"; key: FieldType; value: FieldType };

// Protobuf's wire-compatible scalar groups ("Updating A Message Type"), as Confluent groups them;
// an enum is a general number.
const SCALAR_GROUPS: Record<string, string> = {
  int32: "GENERAL_NUMBER",
  int64: "GENERAL_NUMBER",
  uint32: "GENERAL_NUMBER",
  uint64: "GENERAL_NUMBER",
  bool: "GENERAL_NUMBER",
  sint32: "SIGNED_NUMBER",
  sint64: "SIGNED_NUMBER",
  string: "STRING_OR_BYTES",
  bytes: "STRING_OR_BYTES",
  fixed32: "FIXED32",
  sfixed32: "FIXED32",
  fixed64: "FIXED64",
  sfixed64: "FIXED64",
  float: "FLOAT",
  double: "DOUBLE",
};

function valueType(resolved: protobuf.ReflectionObject | null, name: string): FieldType {
  if (resolved instanceof protobuf.Type) return { kind: "message", type: resolved };
  if (resolved instanceof protobuf.Enum) return { kind: "scalar", group: "GENERAL_NUMBER", name };
  return { kind: "scalar", group: SCALAR_GROUPS[name] ?? name, name };
}

function fieldType(field: protobuf.Field): FieldType {
  if (field instanceof protobuf.MapField) {
    return {
      kind: "map",
      key: valueType(null, field.keyType),
      value: valueType(field.resolvedType, field.type),
    };
  }
  return valueType(field.resolvedType, field.type);
}

/**
 * The label as the .proto text spells it (proto3's implicit singular field has none), which is what
 * Confluent compares: a numeric field moving between optional and repeated changes its encoding.
 */
function labelOf(field: protobuf.Field): "REPEATED" | "REQUIRED" | "OPTIONAL" | null {
  if (field.repeated) return "REPEATED";
  if (field.rule === "required") return "REQUIRED";
  if (field.options?.proto3_optional) return "OPTIONAL";
  if (field.partOf) return null;
  return field.hasPresence && !(field.resolvedType instanceof protobuf.Type) ? "OPTIONAL" : null;
}

/** The package of the file that declares a type: the nearest enclosing namespace that is not a message. */
function packageOf(type: protobuf.ReflectionObject): string {
  let parent = type.parent;
  while (parent instanceof protobuf.Type) parent = parent.parent;
  return parent ? parent.fullName.replace(/^\./, "") : "";
}

/** A type's name within its file's package (Confluent compares message types by it). */
function localName(type: protobuf.ReflectionObject): string {
  const full = type.fullName.replace(/^\./, "");
  const pkg = packageOf(type);
  return pkg && full.startsWith(`${pkg}.`) ? full.slice(pkg.length + 1) : full;
}

/** Confluent's FieldSchemaDiff for two fields with one tag, at `where`. */
export function fieldDiff(
  before: protobuf.Field,
  after: protobuf.Field,
  where: string,
  add: AddDifference,
  compareImported: CompareImported,
): void {
  if (before.name !== after.name) add("FIELD_NAME_CHANGED", where);
  typeDiff(fieldType(before), fieldType(after), labelOf(before), labelOf(after), where, add, compareImported);
}

function typeDiff(
  before: FieldType,
  after: FieldType,
  beforeLabel: string | null,
  afterLabel: string | null,
  where: string,
  add: AddDifference,
  compareImported: CompareImported,
): void {
  if (before.kind !== after.kind) {
    add("FIELD_KIND_CHANGED", where);
    return;
  }
  if (before.kind === "map" && after.kind === "map") {
    typeDiff(before.key, after.key, null, null, where, add, compareImported);
    typeDiff(before.value, after.value, null, null, where, add, compareImported);
  } else if (before.kind === "scalar" && after.kind === "scalar") {
    if (before.group !== after.group) add("FIELD_SCALAR_KIND_CHANGED", where);
    else if (beforeLabel !== null && afterLabel !== null && beforeLabel !== afterLabel) {
      add(
        before.group === "STRING_OR_BYTES"
          ? "FIELD_STRING_OR_BYTES_LABEL_CHANGED"
          : "FIELD_NUMERIC_LABEL_CHANGED",
        where,
      );
    }
  } else if (before.kind === "message" && after.kind === "message") {
    const name = localName(before.type);
    if (name !== localName(after.type)) add("FIELD_NAMED_TYPE_CHANGED", where);
    else if (!compareImported(before.type, after.type, name)) add("FIELD_NAMED_TYPE_CHANGED", where);
  }
}
