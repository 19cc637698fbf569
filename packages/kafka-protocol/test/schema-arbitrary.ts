import fc from "fast-check";
import { defaultValue, Kind, type Plan, type PlanField } from "../src/compile";

/*
 * A fast-check arbitrary derived from a compiled plan, so every schema and version gets random
 * messages without a hand-written generator per API. Fields the version lacks are generated at
 * their defaults, because that is what the decoder fills in.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function scalar(field: PlanField): fc.Arbitrary<unknown> {
  switch (field.kind) {
    case Kind.bool:
      return fc.boolean();
    case Kind.int8:
      return fc.integer({ min: -128, max: 127 });
    case Kind.int16:
      return fc.integer({ min: -32768, max: 32767 });
    case Kind.uint16:
      return fc.integer({ min: 0, max: 0xffff });
    case Kind.int32:
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case Kind.uint32:
      return fc.integer({ min: 0, max: 0xffff_ffff });
    case Kind.int64:
      return fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
    case Kind.float64:
      return fc.double({ noNaN: true });
    case Kind.uuid:
      return fc.uuid();
    case Kind.string:
      return fc.string({ unit: "grapheme", maxLength: 12 });
    case Kind.bytes:
    case Kind.records:
      return fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes));
    default:
      return planArbitrary(field.struct as Plan);
  }
}

function fieldArbitrary(field: PlanField): fc.Arbitrary<unknown> {
  const element = scalar(field);
  const value = field.array ? fc.array(element, { maxLength: 3 }) : element;
  const withNull = field.nullable ? fc.oneof(fc.constant(null), value) : value;
  // Tagged fields are often absent in practice; give the default a fair share so "omitted" is covered.
  return field.tag >= 0 ? fc.oneof(fc.constant(defaultValue(field.schema)), withNull) : withNull;
}

export function planArbitrary(plan: Plan): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of [...plan.fields, ...plan.tagged]) shape[field.name] = fieldArbitrary(field);
  for (const schema of plan.absent) shape[schema.name] = fc.constant(defaultValue(schema));
  return fc.record(shape);
}
