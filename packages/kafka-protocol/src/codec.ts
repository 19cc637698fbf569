import { defaultValue, Kind, type Plan, type PlanField } from "./compile";
import { KafkaProtocolError } from "./errors";
import { Reader, uvarintSize, type Writer } from "./primitives";

/*
 * The one generic codec. Encoding is two passes over a compiled plan: `sizeStruct` measures, the
 * caller allocates exactly, `writeStruct` fills. Decoding is one pass that checks every length
 * against the bytes left before it allocates anything.
 */

type Struct = Readonly<Record<string, unknown>>;

function fieldValue(struct: Struct, field: PlanField): unknown {
  const value = struct[field.name];
  return value === undefined ? field.encodeDefault : value;
}

function invalid(field: PlanField, message: string): KafkaProtocolError {
  return new KafkaProtocolError("INVALID_VALUE", `${field.name}: ${message}`);
}

function arrayPrefixSize(field: PlanField, length: number): number {
  return field.compact ? uvarintSize(length + 1) : 4;
}

function asBytes(field: PlanField, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw invalid(field, "expected a Buffer");
  return value;
}

function asString(field: PlanField, value: unknown): string {
  if (typeof value !== "string") throw invalid(field, "expected a string");
  return value;
}

function sizeElement(field: PlanField, value: unknown): number {
  if (field.fixedBytes >= 0) return field.fixedBytes;
  switch (field.kind) {
    case Kind.string: {
      const length = Buffer.byteLength(asString(field, value), "utf8");
      if (!field.compact && length > 0x7fff) throw invalid(field, "string longer than 32767 bytes");
      return (field.compact ? uvarintSize(length + 1) : 2) + length;
    }
    case Kind.bytes:
    case Kind.records: {
      const length = asBytes(field, value).length;
      return (field.compact ? uvarintSize(length + 1) : 4) + length;
    }
    default:
      return sizeStruct(field.struct as Plan, value as Struct);
  }
}

function checkNull(field: PlanField): void {
  if (!field.nullable) throw new KafkaProtocolError("NULL_NOT_ALLOWED", `${field.name} is not nullable here`);
}

function sizeField(field: PlanField, value: unknown): number {
  if (value === null) {
    checkNull(field);
    return field.compact ? 1 : field.kind === Kind.string && !field.array ? 2 : 4;
  }
  if (!field.array) return sizeElement(field, value);
  if (!Array.isArray(value)) throw invalid(field, "expected an array");
  const prefix = arrayPrefixSize(field, value.length);
  // Fixed-size elements are range-checked when written; only variable ones need a pass here.
  if (field.fixedBytes >= 0) return prefix + value.length * field.fixedBytes;
  let size = prefix;
  for (const element of value) size += sizeElement(field, element);
  return size;
}

/** Kafka writes a tagged field only when it differs from its default (generated `write`). */
function isDefault(field: PlanField, value: unknown): boolean {
  if (value === undefined) return true;
  const dflt = field.encodeDefault;
  if (value === null || dflt === null) return value === dflt;
  if (field.array) return Array.isArray(value) && value.length === 0;
  if (field.kind === Kind.struct) {
    const plan = field.struct as Plan;
    const struct = value as Struct;
    return [...plan.fields, ...plan.tagged].every((f) => isDefault(f, struct[f.name]));
  }
  if (value instanceof Uint8Array) return dflt instanceof Uint8Array && value.length === dflt.length;
  return value === dflt;
}

function sizeTagged(plan: Plan, struct: Struct): number {
  let count = 0;
  let size = 0;
  for (const field of plan.tagged) {
    const value = struct[field.name];
    if (isDefault(field, value)) continue;
    const body = sizeField(field, value);
    count++;
    size += uvarintSize(field.tag) + uvarintSize(body) + body;
  }
  return uvarintSize(count) + size;
}

export function sizeStruct(plan: Plan, struct: Struct): number {
  if (typeof struct !== "object" || struct === null)
    throw new KafkaProtocolError("INVALID_VALUE", "expected a struct");
  let size = 0;
  for (const field of plan.fields) size += sizeField(field, fieldValue(struct, field));
  return plan.flexible ? size + sizeTagged(plan, struct) : size;
}

/**
 * Bytes of the `bytes`/`records` values of at least `min` bytes that `writeStruct` writes: what a
 * Writer referencing such values (instead of copying them) leaves out of its own buffer.
 */
export function referencedBytes(plan: Plan, struct: Struct, min: number): number {
  let total = 0;
  const visit = (field: PlanField, value: unknown) => {
    if (value === null || value === undefined) return;
    if (field.kind === Kind.bytes || field.kind === Kind.records) {
      const length = (value as Uint8Array).length;
      if (length >= min) total += length;
    } else if (field.kind === Kind.struct)
      total += referencedBytes(field.struct as Plan, value as Struct, min);
  };
  const each = (field: PlanField, value: unknown) => {
    if (field.array && Array.isArray(value)) for (const element of value) visit(field, element);
    else if (!field.array) visit(field, value);
  };
  for (const field of plan.fields) each(field, fieldValue(struct, field));
  if (plan.flexible) {
    for (const field of plan.tagged) {
      const value = struct[field.name];
      if (!isDefault(field, value)) each(field, value);
    }
  }
  return total;
}

function writeLength(w: Writer, field: PlanField, length: number, shortLength: boolean): void {
  if (field.compact) w.uvarint(length + 1);
  else if (shortLength) w.int16(length);
  else w.int32(length);
}

function writeElement(w: Writer, field: PlanField, value: unknown): void {
  switch (field.kind) {
    case Kind.bool:
      w.bool(value);
      break;
    case Kind.int8:
      w.int8(value);
      break;
    case Kind.int16:
      w.int16(value);
      break;
    case Kind.uint16:
      w.uint16(value);
      break;
    case Kind.int32:
      w.int32(value);
      break;
    case Kind.uint32:
      w.uint32(value);
      break;
    case Kind.int64:
      w.int64(value);
      break;
    case Kind.float64:
      w.float64(value);
      break;
    case Kind.uuid:
      w.uuid(value);
      break;
    case Kind.string: {
      const text = value as string;
      const length = Buffer.byteLength(text, "utf8");
      writeLength(w, field, length, true);
      w.utf8(text);
      break;
    }
    case Kind.bytes:
    case Kind.records: {
      const bytes = value as Uint8Array;
      writeLength(w, field, bytes.length, false);
      w.bytes(bytes);
      break;
    }
    default:
      writeStruct(w, field.struct as Plan, value as Struct);
  }
}

function writeField(w: Writer, field: PlanField, value: unknown): void {
  if (value === null) {
    writeLength(w, field, -1, field.kind === Kind.string && !field.array);
  } else if (!field.array) {
    writeElement(w, field, value);
  } else {
    writeArray(w, field, value as readonly unknown[]);
  }
}

function writeArray(w: Writer, field: PlanField, values: readonly unknown[]): void {
  writeLength(w, field, values.length, false);
  for (const element of values) writeElement(w, field, element);
}

function writeTagged(w: Writer, plan: Plan, struct: Struct): void {
  let count = 0;
  for (const field of plan.tagged) if (!isDefault(field, struct[field.name])) count++;
  w.uvarint(count);
  for (const field of plan.tagged) {
    const value = struct[field.name];
    if (isDefault(field, value)) continue;
    w.uvarint(field.tag);
    w.uvarint(sizeField(field, value));
    writeField(w, field, value);
  }
}

/** Writes a struct already validated and measured by `sizeStruct`. */
export function writeStruct(w: Writer, plan: Plan, struct: Struct): void {
  for (const field of plan.fields) writeField(w, field, fieldValue(struct, field));
  if (plan.flexible) writeTagged(w, plan, struct);
}

/** Reads a length or count: -1 (classic) / 0 (compact) is null; other negatives are errors. */
function readLength(r: Reader, field: PlanField, shortLength: boolean): number | null {
  const length = field.compact ? r.uvarint() - 1 : shortLength ? r.int16() : r.int32();
  if (length === -1) {
    checkNull(field);
    return null;
  }
  if (length < 0) throw new KafkaProtocolError("INVALID_LENGTH", `${field.name}: length ${length}`);
  return length;
}

function readElement(r: Reader, field: PlanField): unknown {
  switch (field.kind) {
    case Kind.bool:
      return r.uint8() !== 0;
    case Kind.int8:
      return r.int8();
    case Kind.int16:
      return r.int16();
    case Kind.uint16:
      return r.uint16();
    case Kind.int32:
      return r.int32();
    case Kind.uint32:
      return r.uint32();
    case Kind.int64:
      return r.int64();
    case Kind.float64:
      return r.float64();
    case Kind.uuid:
      return r.uuid();
    case Kind.string: {
      const length = readLength(r, field, true);
      return length === null ? null : r.utf8(length);
    }
    case Kind.bytes:
    case Kind.records: {
      const length = readLength(r, field, false);
      return length === null ? null : r.slice(length);
    }
    default:
      return readStruct(r, field.struct as Plan);
  }
}

function readField(r: Reader, field: PlanField): unknown {
  if (!field.array) return readElement(r, field);
  const count = readLength(r, field, false);
  if (count === null) return null;
  // Bound the count by the bytes left before building anything (a claimed 2^31 entries in a tiny frame).
  if (count * field.minBytes > r.remaining) r.need(count * field.minBytes);
  const out: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = readElement(r, field);
  return out;
}

function readTagged(r: Reader, plan: Plan, out: Record<string, unknown>): void {
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    r.need(size);
    const end = r.pos + size;
    const field = plan.tagged.find((f) => f.tag === tag);
    // Unknown tags are skipped, as Kafka's generated readers do.
    if (field) {
      const inner = new Reader(r.buf, r.pos, end);
      out[field.name] = readField(inner, field);
      if (inner.pos !== end)
        throw new KafkaProtocolError("INVALID_LENGTH", `tag ${tag}: size ${size} mismatch`);
    }
    r.pos = end;
  }
}

export function readStruct(r: Reader, plan: Plan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of plan.fields) out[field.name] = readField(r, field);
  for (const field of plan.tagged) out[field.name] = defaultValue(field.schema);
  for (const schema of plan.absent) out[schema.name] = defaultValue(schema);
  if (plan.flexible) readTagged(r, plan, out);
  return out;
}
