import protobuf from "protobufjs";
import { describeProtobufChange, PROTOBUF_COMPATIBLE_CHANGES } from "./protobuf-changes";
import { type AddDifference, fieldDiff } from "./protobuf-field-diff";
import type { Incompatibility } from "./schema-format";

/** One side of a comparison: the file's package and its own top-level messages and enums. */
export interface ProtobufSide {
  packageName: string;
  types: readonly protobuf.ReflectionObject[];
}

/** What one comparison shares: the messages being compared (a message that holds itself stops there). */
interface Run {
  inProgress: Set<protobuf.Type>;
  /** Both files' own top-level types: what a field names outside them comes from an import. */
  own: ReadonlySet<protobuf.ReflectionObject>;
  /**
   * Imported message pairs already compared: their differences sit at the type's own path, the same
   * wherever a field names it, so a type many fields use is compared once.
   */
  imported: Map<protobuf.Type, Map<protobuf.Type, Incompatibility[]>>;
}

/**
 * Every difference between the file data was written with (`original`) and the one reading it
 * (`update`), compatible or not, as Confluent's Protobuf diff names them.
 */
export function protobufDifferences(original: ProtobufSide, update: ProtobufSide): Incompatibility[] {
  const differences: Incompatibility[] = [];
  const add: AddDifference = (type, location) =>
    differences.push({ type, location, description: describeProtobufChange(type, location) });
  if (original.packageName !== update.packageName) add("PACKAGE_CHANGED", "#/");
  const own = new Set([...original.types, ...update.types]);
  typesDiff(original.types, update.types, "#", add, { inProgress: new Set(), own, imported: new Map() });
  return differences;
}

/** The differences that stop `update` from reading data written with `original`. */
export function compareProtobufSchemas(original: ProtobufSide, update: ProtobufSide): Incompatibility[] {
  return protobufDifferences(original, update).filter((d) => !PROTOBUF_COMPATIBLE_CHANGES.has(d.type));
}

const isMapEntry = (type: protobuf.Type) => type.options?.map_entry === true;

/** Messages (with their index among the messages, which framed payloads name) and enums by name. */
function byName(types: readonly protobuf.ReflectionObject[]) {
  const messages = new Map<string, { type: protobuf.Type; index: number }>();
  const enums = new Map<string, protobuf.Enum>();
  for (const type of types) {
    if (type instanceof protobuf.Type) messages.set(type.name, { type, index: messages.size });
    else if (type instanceof protobuf.Enum) enums.set(type.name, type);
  }
  return { messages, enums };
}

/** Confluent's compareTypeElements: messages, then enums, matched by name at one nesting level. */
function typesDiff(
  original: readonly protobuf.ReflectionObject[],
  update: readonly protobuf.ReflectionObject[],
  path: string,
  add: AddDifference,
  run: Run,
): void {
  const before = byName(original);
  const after = byName(update);
  for (const name of new Set([...before.messages.keys(), ...after.messages.keys()])) {
    const where = `${path}/${name}`;
    const was = before.messages.get(name);
    const now = after.messages.get(name);
    if (!now) {
      if (!isMapEntry(was!.type)) add("MESSAGE_REMOVED", where);
    } else if (!was) {
      if (!isMapEntry(now.type)) add("MESSAGE_ADDED", where);
    } else {
      messageDiff(was.type, now.type, where, add, run);
      // Framed payloads name a message by its index in the schema they were written with.
      if (was.index !== now.index) add("MESSAGE_MOVED", where);
    }
  }
  for (const name of new Set([...before.enums.keys(), ...after.enums.keys()])) {
    const where = `${path}/${name}`;
    const was = before.enums.get(name);
    const now = after.enums.get(name);
    if (!now) add("ENUM_REMOVED", where);
    else if (!was) add("ENUM_ADDED", where);
    else enumDiff(was, now, where, add);
  }
}

/** Confluent's EnumSchemaDiff: constants by number (only names changed, added or removed: all readable). */
function enumDiff(before: protobuf.Enum, after: protobuf.Enum, path: string, add: AddDifference): void {
  const names = (e: protobuf.Enum) => {
    const byNumber = new Map<number, string>();
    for (const [name, number] of Object.entries(e.values))
      if (!byNumber.has(number)) byNumber.set(number, name);
    return byNumber;
  };
  const was = names(before);
  const now = names(after);
  for (const number of [...new Set([...was.keys(), ...now.keys()])].sort((a, b) => a - b)) {
    const where = `${path}/${number}`;
    if (!now.has(number)) add("ENUM_CONST_REMOVED", where);
    else if (!was.has(number)) add("ENUM_CONST_ADDED", where);
    else if (was.get(number) !== now.get(number)) add("ENUM_CONST_CHANGED", where);
  }
}

/** A real oneof: proto3's `optional` is a synthetic oneof of one field, which Confluent does not see. */
const realOneofs = (type: protobuf.Type) =>
  type.oneofsArray.filter((o) => !(o.fieldsArray.length === 1 && o.fieldsArray[0]?.options?.proto3_optional));

function oneofByTag(type: protobuf.Type): Map<number, string> {
  const map = new Map<number, string>();
  for (const oneof of realOneofs(type)) for (const field of oneof.fieldsArray) map.set(field.id, oneof.name);
  return map;
}

/**
 * Confluent's MessageSchemaDiff: fields by tag across the whole message (oneof membership aside, so
 * a move into or out of a oneof cannot hide a type change), oneofs that make once independent fields
 * exclusive, oneofs added or removed, then the nested types.
 */
function messageDiff(
  before: protobuf.Type,
  after: protobuf.Type,
  path: string,
  add: AddDifference,
  run: Run,
) {
  if (!run.inProgress.has(before)) {
    run.inProgress.add(before);
    fieldsDiff(before, after, path, add, run);
    run.inProgress.delete(before);
  }
  typesDiff(before.nestedArray, after.nestedArray, path, add, run);
}

function fieldsDiff(before: protobuf.Type, after: protobuf.Type, path: string, add: AddDifference, run: Run) {
  const wasById = new Map(before.fieldsArray.map((f) => [f.id, f]));
  const nowById = new Map(after.fieldsArray.map((f) => [f.id, f]));
  const wasOneof = oneofByTag(before);
  const nowOneof = oneofByTag(after);
  const beforeOneofs = new Map(realOneofs(before).map((o) => [o.name, o]));
  const afterOneofs = new Map(realOneofs(after).map((o) => [o.name, o]));
  // A oneof gone with every member is a deletion (readable); one whose members partly survive loses the rest.
  const deletedOneofs = new Set(
    [...beforeOneofs.values()]
      .filter((o) => !afterOneofs.has(o.name) && o.fieldsArray.every((f) => !nowById.has(f.id)))
      .map((o) => o.name),
  );
  for (const oneof of afterOneofs.values()) {
    // Members were exclusive before only if they came from one original oneof; new fields never were set.
    const groups = new Set<string>();
    let movedIn = 0;
    for (const field of oneof.fieldsArray) {
      const group = wasOneof.get(field.id);
      if (group !== undefined) groups.add(`oneof:${group}`);
      else if (wasById.has(field.id)) {
        groups.add(`field:${field.id}`);
        movedIn++;
      }
    }
    if (groups.size > 1) {
      add(
        movedIn > 1 ? "MULTIPLE_FIELDS_MOVED_TO_ONEOF" : "FIELD_MOVED_TO_EXISTING_ONEOF",
        `${path}/${oneof.name}`,
      );
    }
  }
  for (const name of [...new Set([...beforeOneofs.keys(), ...afterOneofs.keys()])].sort()) {
    if (!afterOneofs.has(name)) add("ONEOF_REMOVED", `${path}/${name}`);
    else if (!beforeOneofs.has(name)) add("ONEOF_ADDED", `${path}/${name}`);
  }
  const compareImported = (was: protobuf.Type, now: protobuf.Type, name: string) =>
    importedDiff(was, now, name, add, run);
  for (const id of [...new Set([...wasById.keys(), ...nowById.keys()])].sort((a, b) => a - b)) {
    const was = wasById.get(id);
    const now = nowById.get(id);
    const wasIn = wasOneof.get(id);
    const nowIn = nowOneof.get(id);
    if (!now) {
      if (wasIn === undefined)
        add(was!.rule === "required" ? "REQUIRED_FIELD_REMOVED" : "FIELD_REMOVED", `${path}/${id}`);
      else if (!deletedOneofs.has(wasIn)) add("ONEOF_FIELD_REMOVED", `${path}/${wasIn}/${id}`);
    } else if (!was) {
      if (nowIn === undefined)
        add(now.rule === "required" ? "REQUIRED_FIELD_ADDED" : "FIELD_ADDED", `${path}/${id}`);
      else add("ONEOF_FIELD_ADDED", `${path}/${nowIn}/${id}`);
    } else {
      if (wasIn !== undefined && nowIn === undefined) add("ONEOF_FIELD_MOVED_TO_TOP_LEVEL", `${path}/${id}`);
      const where = nowIn === undefined ? `${path}/${id}` : `${path}/${nowIn}/${id}`;
      fieldDiff(was, now, where, add, compareImported);
    }
  }
}

/** The file's own top-level message or enum a type is declared in (itself when top-level). */
function topLevel(type: protobuf.ReflectionObject): protobuf.ReflectionObject {
  let current = type;
  while (current.parent instanceof protobuf.Type) current = current.parent;
  return current;
}

/**
 * A message type a field names from an imported file, compared where Confluent compares it (under its
 * own name); types declared in the compared files themselves are compared where they are declared.
 */
function importedDiff(
  before: protobuf.Type,
  after: protobuf.Type,
  name: string,
  add: AddDifference,
  run: Run,
): boolean {
  if (run.own.has(topLevel(before)) && run.own.has(topLevel(after))) return true;
  let byAfter = run.imported.get(before);
  if (!byAfter) {
    byAfter = new Map();
    run.imported.set(before, byAfter);
  }
  let found = byAfter.get(after);
  if (!found) {
    const collected: Incompatibility[] = [];
    const collect: AddDifference = (type, location) =>
      collected.push({ type, location, description: describeProtobufChange(type, location) });
    messageDiff(before, after, `#/${name.split(".").join("/")}`, collect, run);
    found = collected;
    byAfter.set(after, found);
  }
  for (const d of found) add(d.type, d.location);
  return found.every((d) => PROTOBUF_COMPATIBLE_CHANGES.has(d.type));
}
