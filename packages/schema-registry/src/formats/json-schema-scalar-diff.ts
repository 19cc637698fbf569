import { boundDiff, type DiffContext, type JsonSchemaNode, type Schema } from "./json-schema-diff-context";
import { sortedJson } from "./schema-format";

/** Confluent's StringSchemaDiff: length bounds and the pattern (any new or changed pattern narrows). */
export function stringDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  boundDiff(ctx, original, update, path, "maxLength", "MAX_LENGTH");
  boundDiff(ctx, original, update, path, "minLength", "MIN_LENGTH");
  const before = typeof original.pattern === "string" ? original.pattern : undefined;
  const after = typeof update.pattern === "string" ? update.pattern : undefined;
  if (before === undefined && after !== undefined) ctx.add("PATTERN_ADDED", `${path}/pattern`);
  else if (before !== undefined && after === undefined) ctx.add("PATTERN_REMOVED", `${path}/pattern`);
  else if (before !== after) ctx.add("PATTERN_CHANGED", `${path}/pattern`);
}

/** Digits after the decimal point, so multipleOf compares exactly (0.1 and 0.3 are not floats here). */
function decimals(value: number): number {
  const [mantissa = "", exponent = "0"] = String(value).toLowerCase().split("e");
  const fraction = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/** Whether `value` is a whole multiple of `step`, in decimal (as Confluent's BigDecimal check). */
function isMultiple(value: number, step: number): boolean {
  if (step === 0) return false;
  const scale = 10 ** Math.max(decimals(value), decimals(step));
  return Math.round(value * scale) % Math.round(step * scale) === 0;
}

/**
 * Confluent's NumberSchemaDiff: the bounds (a lower maximum or a higher minimum narrows), multipleOf
 * (a multiple of the old step narrows, a divisor widens) and number ↔ integer.
 */
export function numberDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  boundDiff(ctx, original, update, path, "maximum", "MAXIMUM");
  boundDiff(ctx, original, update, path, "minimum", "MINIMUM");
  // Draft-04's boolean exclusiveMaximum/Minimum modify maximum/minimum; only numeric limits are bounds.
  boundDiff(ctx, original, update, path, "exclusiveMaximum", "EXCLUSIVE_MAXIMUM");
  boundDiff(ctx, original, update, path, "exclusiveMinimum", "EXCLUSIVE_MINIMUM");
  const before = typeof original.multipleOf === "number" ? original.multipleOf : undefined;
  const after = typeof update.multipleOf === "number" ? update.multipleOf : undefined;
  const where = `${path}/multipleOf`;
  if (before !== after) {
    if (before === undefined) ctx.add("MULTIPLE_OF_ADDED", where);
    else if (after === undefined) ctx.add("MULTIPLE_OF_REMOVED", where);
    else if (isMultiple(after, before)) ctx.add("MULTIPLE_OF_EXPANDED", where);
    else if (isMultiple(before, after)) ctx.add("MULTIPLE_OF_REDUCED", where);
    else ctx.add("MULTIPLE_OF_CHANGED", where);
  }
  const wasInteger = original.type === "integer";
  const isInteger = update.type === "integer";
  if (wasInteger && !isInteger) ctx.add("TYPE_EXTENDED", path);
  else if (!wasInteger && isInteger) ctx.add("TYPE_NARROWED", path);
}

/** Confluent's EnumSchemaDiff: values compared as sets of JSON values. */
export function enumDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const before = new Set((original.enum as unknown[]).map(sortedJson));
  const after = new Set((update.enum as unknown[]).map(sortedJson));
  const lost = [...before].some((v) => !after.has(v));
  const gained = [...after].some((v) => !before.has(v));
  if (!lost && !gained) return;
  const where = `${path}/enum`;
  ctx.add(!lost ? "ENUM_ARRAY_EXTENDED" : !gained ? "ENUM_ARRAY_NARROWED" : "ENUM_ARRAY_CHANGED", where);
}

/** Confluent's ConstSchemaDiff: any other value is a changed enum of one. */
export function constDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  if (sortedJson(original.const) !== sortedJson(update.const)) ctx.add("ENUM_ARRAY_CHANGED", `${path}/const`);
}

/** Confluent's NotSchemaDiff: the negation reverses the direction — the update may exclude less. */
export function notDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const where = `${path}/not`;
  const { compatible } = ctx.trial(update.not as JsonSchemaNode, original.not as JsonSchemaNode, where, true);
  ctx.add(compatible ? "NOT_TYPE_NARROWED" : "NOT_TYPE_EXTENDED", where);
}
