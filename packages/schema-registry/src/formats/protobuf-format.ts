import protobuf from "protobufjs";
import { invalidSchema } from "../registry-error";
import { canonicalText } from "./canonical";
import {
  flattenReferences,
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
} from "./schema-format";

export interface ProtobufHandle {
  root: protobuf.Root;
  packageName: string;
  /** The file's own top-level messages and enums, in declaration order (the wire format's message indexes). */
  types: readonly protobuf.ReflectionObject[];
}

const PARSE_OPTIONS = { keepCase: true, alternateCommentMode: true } as const;

function parseInto(text: string, root: protobuf.Root, what: string): protobuf.IParserResult {
  try {
    return protobuf.parse(text, root, PARSE_OPTIONS);
  } catch (error) {
    throw invalidSchema(`${what} does not parse (${(error as Error).message})`);
  }
}

/**
 * Protobuf through protobufjs: references are the files a schema imports (by the import's path),
 * parsed into the same root; Google's well-known types come with protobufjs.
 */
function parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema<ProtobufHandle> {
  const root = new protobuf.Root();
  const names = new Set<string>();
  for (const ref of flattenReferences(references)) {
    parseInto(ref.schema, root, `referenced schema "${ref.name}"`);
    names.add(ref.name);
  }
  const own = parseInto(schema, new protobuf.Root(), "the schema");
  for (const path of own.imports ?? []) {
    if (names.has(path)) continue;
    const known = protobuf.common.get(path);
    if (!known) throw invalidSchema(`import "${path}" is neither a reference nor a well-known type`);
    root.addJSON((known as { nested: Record<string, protobuf.AnyNestedObject> }).nested);
  }
  const result = parseInto(schema, root, "the schema");
  try {
    root.resolveAll();
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
  const packageName = result.package ?? "";
  const scope = packageName ? root.lookup(packageName) : root;
  const ownNames = new Set(Object.keys(namespaceOf(own.root, packageName)?.nested ?? {}));
  const types = (scope as protobuf.Namespace).nestedArray.filter(
    (t) => ownNames.has(t.name) && (t instanceof protobuf.Type || t instanceof protobuf.Enum),
  );
  const canonical = canonicalText("PROTOBUF", schema);
  return {
    schemaType: "PROTOBUF",
    canonical,
    normalized: schema.trim(),
    handle: { root, packageName, types },
  };
}

function namespaceOf(root: protobuf.Root, packageName: string): protobuf.Namespace | null {
  const found = packageName ? root.lookup(packageName) : root;
  return found instanceof protobuf.Namespace ? found : null;
}

/**
 * Confluent's Protobuf rules (its protobuf diff's COMPATIBLE_CHANGES): adding or removing fields,
 * messages and enums is compatible (unknown fields are skipped, missing ones default); what changes
 * a field's encoding (kind, scalar group, named type), the package, a required field, or oneof
 * membership is not. Reading is symmetric in Protobuf, so the reader is the "update".
 */
function readIssues(
  reader: ParsedSchema<ProtobufHandle>,
  writer: ParsedSchema<ProtobufHandle>,
): Incompatibility[] {
  const issues: Incompatibility[] = [];
  const add = (type: string, location: string, description: string) =>
    issues.push({ type, location, description });
  if (writer.handle.packageName !== reader.handle.packageName) {
    add(
      "PACKAGE_CHANGED",
      "#/",
      `package changed from "${writer.handle.packageName}" to "${reader.handle.packageName}"`,
    );
  }
  compareTypes(writer.handle.types, reader.handle.types, "#", add, new Set());
  return issues;
}

type Add = (type: string, location: string, description: string) => void;

function compareTypes(
  original: readonly protobuf.ReflectionObject[],
  update: readonly protobuf.ReflectionObject[],
  path: string,
  add: Add,
  seen: Set<string>,
): void {
  const updates = new Map(update.map((t) => [t.name, t]));
  for (const before of original) {
    const after = updates.get(before.name);
    const where = `${path}/${before.name}`;
    if (!(before instanceof protobuf.Type)) continue;
    if (!(after instanceof protobuf.Type)) {
      if (!isMapEntry(before)) add("MESSAGE_REMOVED", where, `message ${before.fullName} removed`);
      continue;
    }
    compareMessages(before, after, where, add, seen);
  }
}

function isMapEntry(type: protobuf.Type): boolean {
  return type.options?.map_entry === true;
}

function oneofOf(field: protobuf.Field): string | null {
  const oneof = field.partOf;
  if (!oneof || field.options?.proto3_optional) return null;
  return oneof.name;
}

function compareMessages(
  before: protobuf.Type,
  after: protobuf.Type,
  path: string,
  add: Add,
  seen: Set<string>,
): void {
  const pair = `${before.fullName}\u0000${after.fullName}`;
  if (seen.has(pair)) return;
  seen.add(pair);
  const afterById = new Map(after.fieldsArray.map((f) => [f.id, f]));
  const beforeById = new Map(before.fieldsArray.map((f) => [f.id, f]));
  for (const field of before.fieldsArray) {
    const where = `${path}/${field.id}`;
    const next = afterById.get(field.id);
    if (!next) {
      if (field.rule === "required")
        add("REQUIRED_FIELD_REMOVED", where, `required field ${field.name} removed`);
      else if (oneofOf(field))
        add("ONEOF_FIELD_REMOVED", where, `field ${field.name} removed from oneof ${oneofOf(field)}`);
      continue;
    }
    compareFields(field, next, where, add, seen);
  }
  for (const field of after.fieldsArray) {
    if (!beforeById.has(field.id) && field.rule === "required") {
      add("REQUIRED_FIELD_ADDED", `${path}/${field.id}`, `required field ${field.name} added`);
    }
  }
  for (const oneof of after.oneofsArray) {
    if (oneof.fieldsArray.length === 1 && oneof.fieldsArray[0]?.options?.proto3_optional) continue;
    const moved = oneof.fieldsArray.filter((f) => {
      const old = beforeById.get(f.id);
      return old !== undefined && oneofOf(old) === null;
    });
    const existing = oneof.fieldsArray.filter((f) => {
      const old = beforeById.get(f.id);
      return old !== undefined && oneofOf(old) !== null;
    });
    if (moved.length > 1)
      add(
        "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
        `${path}/${oneof.name}`,
        `several fields moved into oneof ${oneof.name}`,
      );
    else if (moved.length === 1 && existing.length > 0) {
      add(
        "FIELD_MOVED_TO_EXISTING_ONEOF",
        `${path}/${oneof.name}`,
        `field ${moved[0]!.name} moved into existing oneof ${oneof.name}`,
      );
    }
  }
  compareTypes(before.nestedArray, after.nestedArray, path, add, seen);
}

type Kind = "scalar" | "map" | "message";

function kindOf(field: protobuf.Field): Kind {
  if (field.map) return "map";
  if (field.resolvedType instanceof protobuf.Type) return "message";
  return "scalar";
}

// Protobuf's wire-compatible scalar groups (protobuf.dev "Updating A Message Type"), as Confluent groups them.
const SCALAR_GROUPS: Record<string, string> = {
  int32: "varint",
  int64: "varint",
  uint32: "varint",
  uint64: "varint",
  bool: "varint",
  sint32: "zigzag",
  sint64: "zigzag",
  string: "length",
  bytes: "length",
  fixed32: "fixed32",
  sfixed32: "fixed32",
  fixed64: "fixed64",
  sfixed64: "fixed64",
  float: "float",
  double: "double",
};

function scalarGroup(field: protobuf.Field): string {
  if (field.resolvedType instanceof protobuf.Enum) return "varint";
  return SCALAR_GROUPS[field.type] ?? field.type;
}

function compareFields(
  before: protobuf.Field,
  after: protobuf.Field,
  where: string,
  add: Add,
  seen: Set<string>,
): void {
  const kind = kindOf(before);
  if (kind !== kindOf(after)) {
    add("FIELD_KIND_CHANGED", where, `field ${before.name} changed kind from ${kind} to ${kindOf(after)}`);
    return;
  }
  if (kind === "map") {
    const beforeMap = before as unknown as protobuf.MapField;
    const afterMap = after as unknown as protobuf.MapField;
    if (SCALAR_GROUPS[beforeMap.keyType] !== SCALAR_GROUPS[afterMap.keyType]) {
      add(
        "FIELD_SCALAR_KIND_CHANGED",
        where,
        `map key of ${before.name} changed from ${beforeMap.keyType} to ${afterMap.keyType}`,
      );
    }
  }
  const beforeType = before.resolvedType;
  const afterType = after.resolvedType;
  if (beforeType instanceof protobuf.Type && afterType instanceof protobuf.Type) {
    if (beforeType.name !== afterType.name) {
      add(
        "FIELD_NAMED_TYPE_CHANGED",
        where,
        `field ${before.name} changed type from ${beforeType.fullName} to ${afterType.fullName}`,
      );
      return;
    }
    compareMessages(beforeType, afterType, where, add, seen);
    return;
  }
  if (scalarGroup(before) !== scalarGroup(after)) {
    add(
      "FIELD_SCALAR_KIND_CHANGED",
      where,
      `field ${before.name} changed from ${before.type} to ${after.type}`,
    );
  }
}

export const protobufFormat: SchemaFormat<ProtobufHandle> = { schemaType: "PROTOBUF", parse, readIssues };
