import type { DefaultValue, FieldSchema, PrimitiveType } from "./schema-types";

/** An inclusive version range; `max` is Infinity for Kafka's "N+". */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

const NONE: VersionRange = { min: 1, max: 0 };

export function parseVersions(spec: string): VersionRange {
  if (spec === "none") return NONE;
  if (spec.endsWith("+")) return { min: Number(spec.slice(0, -1)), max: Number.POSITIVE_INFINITY };
  const [low, high = low] = spec.split("-");
  return { min: Number(low), max: Number(high) };
}

export function inVersions(spec: string | undefined, version: number): boolean {
  if (spec === undefined) return false;
  const range = parseVersions(spec);
  return version >= range.min && version <= range.max;
}

/** Wire kinds; numbers so the generic loops switch on a small integer, not a string. */
export const Kind = {
  bool: 0,
  int8: 1,
  int16: 2,
  int32: 3,
  int64: 4,
  uint16: 5,
  uint32: 6,
  float64: 7,
  string: 8,
  bytes: 9,
  records: 10,
  uuid: 11,
  struct: 12,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** One field as it is laid out at one version of one message. */
export interface PlanField {
  readonly name: string;
  readonly kind: Kind;
  readonly array: boolean;
  readonly nullable: boolean;
  /** Compact (uvarint-length) encoding: the message is flexible here and the field does not opt out. */
  readonly compact: boolean;
  /** -1 for a field in the fixed part; otherwise its tag in the tagged-fields section. */
  readonly tag: number;
  readonly struct: Plan | undefined;
  readonly schema: FieldSchema;
  /** Fewest bytes one element (or the value, if not an array) can take: bounds array counts. */
  readonly minBytes: number;
}

/** A struct (or a whole message body) at one version. */
export interface Plan {
  readonly flexible: boolean;
  /** Fields in the fixed part, in wire order. */
  readonly fields: readonly PlanField[];
  /** Tagged fields in ascending tag order (the order Kafka writes them). */
  readonly tagged: readonly PlanField[];
  /** Fields the version lacks; decoding fills them with defaults. */
  readonly absent: readonly FieldSchema[];
  readonly minBytes: number;
}

const FIXED_SIZES: Partial<Record<PrimitiveType, number>> = {
  bool: 1,
  int8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  float64: 8,
  uuid: 16,
};

function elementType(field: FieldSchema): string {
  return field.type.startsWith("[]") ? field.type.slice(2) : field.type;
}

function kindOf(field: FieldSchema): Kind {
  if (field.fields) return Kind.struct;
  const kind = (Kind as Record<string, Kind>)[elementType(field)];
  if (kind === undefined || kind === Kind.struct) throw new Error(`schema: unknown type ${field.type}`);
  return kind;
}

function minBytesOf(field: FieldSchema, kind: Kind, compact: boolean, struct: Plan | undefined): number {
  if (struct) return struct.minBytes;
  const fixed = FIXED_SIZES[elementType(field) as PrimitiveType];
  if (fixed !== undefined) return fixed;
  if (kind === Kind.string) return compact ? 1 : 2;
  return compact ? 1 : 4;
}

function planField(field: FieldSchema, version: number, flexible: boolean): PlanField {
  const kind = kindOf(field);
  const array = field.type.startsWith("[]");
  if (field.fields && !array && field.nullableVersions)
    throw new Error(`schema: nullable struct ${field.name}`);
  const compact = flexible && field.flexibleVersions !== "none";
  const struct = field.fields ? compileFields(field.fields, version, flexible) : undefined;
  const tagged = flexible && inVersions(field.taggedVersions, version);
  const elementBytes = minBytesOf(field, kind, compact, struct);
  return {
    name: field.name,
    kind,
    array,
    nullable: inVersions(field.nullableVersions, version),
    compact,
    tag: tagged ? (field.tag ?? -1) : -1,
    struct,
    schema: field,
    // A zero-byte element would let a tiny frame claim billions of entries; no schema has one.
    minBytes: array ? Math.max(elementBytes, 1) : elementBytes,
  };
}

/** Lays out `fields` at `version`. Pure; callers cache the result per version. */
export function compileFields(fields: readonly FieldSchema[], version: number, flexible: boolean): Plan {
  const fixed: PlanField[] = [];
  const tagged: PlanField[] = [];
  const absent: FieldSchema[] = [];
  for (const field of fields) {
    if (!inVersions(field.versions, version)) {
      absent.push(field);
      continue;
    }
    const planned = planField(field, version, flexible);
    (planned.tag >= 0 ? tagged : fixed).push(planned);
  }
  tagged.sort((a, b) => a.tag - b.tag);
  let minBytes = flexible ? 1 : 0;
  for (const field of fixed) minBytes += field.array ? (field.compact ? 1 : 4) : field.minBytes;
  return { flexible, fields: fixed, tagged, absent, minBytes };
}

/** Kafka's generated defaults: explicit `default`, else 0 / false / "" / empty / null for records. */
export function defaultValue(field: FieldSchema): unknown {
  if (field.type.startsWith("[]")) return field.default === null ? null : [];
  if (field.default !== undefined) return field.default satisfies DefaultValue;
  if (field.fields) return defaultStruct(field.fields);
  switch (elementType(field)) {
    case "bool":
      return false;
    case "int64":
      return 0n;
    case "string":
      return "";
    case "bytes":
      return Buffer.alloc(0);
    case "records":
      return null;
    case "uuid":
      return ZERO_UUID;
    default:
      return 0;
  }
}

export const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

export function defaultStruct(fields: readonly FieldSchema[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field.name] = defaultValue(field);
  return out;
}
