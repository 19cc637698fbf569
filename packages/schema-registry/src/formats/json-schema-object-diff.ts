import {
  additionalDiff,
  boundDiff,
  type DiffContext,
  type JsonSchemaNode,
  partialContentDiff,
  removedFromContentModel,
  type Schema,
} from "./json-schema-diff-context";
import { isEmptySchema } from "./json-schema-kinds";

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const properties = (schema: Schema) => record(schema.properties) as Record<string, JsonSchemaNode>;
const requiredOf = (schema: Schema) =>
  new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
const hasDefault = (node: JsonSchemaNode | undefined) => typeof node === "object" && "default" in node;

/** additionalProperties as a schema (an object, even `{}`); `true`, `false` and absent are not schemas. */
const additionalSchema = (schema: Schema) =>
  typeof schema.additionalProperties === "object" && schema.additionalProperties !== null
    ? (schema.additionalProperties as JsonSchemaNode)
    : null;
const permitsAdditional = (schema: Schema) => schema.additionalProperties !== false;
const additionalOf = (schema: Schema) => ({
  permits: permitsAdditional(schema),
  schema: additionalSchema(schema),
});
const unevaluated = (schema: Schema) =>
  schema.unevaluatedProperties === undefined ? null : (schema.unevaluatedProperties as JsonSchemaNode);
const patternProperties = (schema: Schema) =>
  record(schema.patternProperties) as Record<string, JsonSchemaNode>;

/** Open: any property not named is accepted, whatever its value. */
function isOpen(schema: Schema): boolean {
  if (!permitsAdditional(schema) || additionalSchema(schema) !== null) return false;
  if (Object.keys(patternProperties(schema)).length > 0) return false;
  const rest = unevaluated(schema);
  return rest === null || isEmptySchema(rest);
}

/** The schema a partially open content model holds an unnamed property `key` to (null: none, closed). */
function partialSchema(schema: Schema, key: string): JsonSchemaNode | null {
  for (const [pattern, node] of Object.entries(patternProperties(schema))) {
    try {
      if (new RegExp(pattern, "u").test(key)) return node;
    } catch {
      // A pattern JavaScript cannot compile matches nothing here (ajv refused it at registration anyway).
    }
  }
  const additional = additionalSchema(schema);
  if (additional !== null) return additional;
  const rest = unevaluated(schema);
  if (permitsAdditional(schema) && rest !== null && rest !== false && !isEmptySchema(rest)) return rest;
  return null;
}

/** Property dependencies (`dependencies` arrays, `dependentRequired`) and schema dependencies. */
function dependencies(schema: Schema): {
  arrays: Map<string, Set<string>>;
  schemas: Map<string, JsonSchemaNode>;
} {
  const arrays = new Map<string, Set<string>>();
  const schemas = new Map<string, JsonSchemaNode>();
  const all = { ...record(schema.dependencies), ...record(schema.dependentRequired) };
  for (const [key, value] of Object.entries(all)) {
    if (Array.isArray(value)) arrays.set(key, new Set(value.map(String)));
    else schemas.set(key, value as JsonSchemaNode);
  }
  for (const [key, value] of Object.entries(record(schema.dependentSchemas))) {
    schemas.set(key, value as JsonSchemaNode);
  }
  return { arrays, schemas };
}

/**
 * Confluent's ObjectSchemaDiff: required properties, each property against the other side's content
 * model (open, closed or partially open through patternProperties / additionalProperties /
 * unevaluatedProperties), dependencies, additional and unevaluated properties, and the
 * property-count bounds.
 */
export function objectDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  requiredDiff(ctx, original, update, path);
  propertiesDiff(ctx, original, update, path);
  dependenciesDiff(ctx, original, update, path);
  additionalDiff(
    ctx,
    additionalOf(original),
    additionalOf(update),
    `${path}/additionalProperties`,
    "PROPERTIES",
  );
  unevaluatedDiff(
    ctx,
    unevaluated(original),
    unevaluated(update),
    `${path}/unevaluatedProperties`,
    "PROPERTIES",
  );
  boundDiff(ctx, original, update, path, "maxProperties", "MAX_PROPERTIES");
  boundDiff(ctx, original, update, path, "minProperties", "MIN_PROPERTIES");
}

function requiredDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const after = properties(update);
  const wasRequired = requiredOf(original);
  const isRequired = requiredOf(update);
  for (const key of Object.keys(properties(original))) {
    if (!(key in after)) continue;
    const where = `${path}/required/${key}`;
    if (wasRequired.has(key) && !isRequired.has(key)) ctx.add("REQUIRED_ATTRIBUTE_REMOVED", where);
    else if (!wasRequired.has(key) && isRequired.has(key)) {
      ctx.add(
        hasDefault(after[key]) ? "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED" : "REQUIRED_ATTRIBUTE_ADDED",
        where,
      );
    }
  }
}

function propertiesDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const before = properties(original);
  const after = properties(update);
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const where = `${path}/properties/${key}`;
    const was = before[key];
    const now = after[key];
    if (was !== undefined && now !== undefined) ctx.compare(was, now, where);
    else if (was !== undefined) propertyRemoved(ctx, update, key, was, where);
    else if (now !== undefined) propertyAdded(ctx, original, update, key, now, where);
  }
}

/** Only the update's content model decides whether data still holding the property is read. */
function propertyRemoved(ctx: DiffContext, update: Schema, key: string, was: JsonSchemaNode, where: string) {
  const open = isOpen(update);
  removedFromContentModel(ctx, "PROPERTY", open, open ? null : partialSchema(update, key), was, where);
}

/** Only the original's content model decides what old data may hold under the new name. */
function propertyAdded(
  ctx: DiffContext,
  original: Schema,
  update: Schema,
  key: string,
  now: JsonSchemaNode,
  where: string,
) {
  const required = requiredOf(update).has(key);
  if (isOpen(original)) {
    if (isEmptySchema(now)) ctx.add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", where);
    else if (!required) ctx.add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", where);
    else
      ctx.add(
        hasDefault(now)
          ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
          : "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
        where,
      );
    return;
  }
  const partial = partialSchema(original, key);
  if (partial !== null) {
    partialContentDiff(ctx, partial, now, where, "PROPERTY_ADDED");
  }
  if (!required) ctx.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", where);
  else
    ctx.add(
      hasDefault(now)
        ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL"
        : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
      where,
    );
}

function dependenciesDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const before = dependencies(original);
  const after = dependencies(update);
  for (const [key, was, now] of keyedPairs(before.arrays, after.arrays)) {
    const where = `${path}/dependencies/${key}`;
    if (now === undefined) ctx.add("DEPENDENCY_ARRAY_REMOVED", where);
    else if (was === undefined) ctx.add("DEPENDENCY_ARRAY_ADDED", where);
    else {
      const gained = [...now].some((p) => !was.has(p));
      const lost = [...was].some((p) => !now.has(p));
      if (gained && !lost) ctx.add("DEPENDENCY_ARRAY_EXTENDED", where);
      else if (lost && !gained) ctx.add("DEPENDENCY_ARRAY_NARROWED", where);
      else if (lost && gained) ctx.add("DEPENDENCY_ARRAY_CHANGED", where);
    }
  }
  for (const [key, was, now] of keyedPairs(before.schemas, after.schemas)) {
    const where = `${path}/dependencies/${key}`;
    if (now === undefined) ctx.add("DEPENDENCY_SCHEMA_REMOVED", where);
    else if (was === undefined) ctx.add("DEPENDENCY_SCHEMA_ADDED", where);
    else ctx.compare(was, now, where);
  }
}

/** Every key of either map, with its value before and after (undefined where a map lacks it). */
function* keyedPairs<V>(before: ReadonlyMap<string, V>, after: ReadonlyMap<string, V>) {
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    yield [key, before.get(key), after.get(key)] as const;
  }
}

/**
 * unevaluatedProperties / unevaluatedItems (`family`): `false` forbids, absent or `true` allows
 * anything, a schema allows that much.
 */
export function unevaluatedDiff(
  ctx: DiffContext,
  before: JsonSchemaNode | null,
  after: JsonSchemaNode | null,
  where: string,
  family: "PROPERTIES" | "ITEMS",
): void {
  if (before === null && after === null) return;
  const type = (change: string) => `UNEVALUATED_${family}_${change}`;
  if (before === null) ctx.add(type(after === false ? "REMOVED" : "NARROWED"), where);
  else if (after === null) ctx.add(type(before === false ? "ADDED" : "EXTENDED"), where);
  else if (before === false && after !== false) ctx.add(type("ADDED"), where);
  else if (before !== false && after === false) ctx.add(type("REMOVED"), where);
  else if (isEmptySchema(before) && !isEmptySchema(after)) ctx.add(type("NARROWED"), where);
  else if (!isEmptySchema(before) && isEmptySchema(after)) ctx.add(type("EXTENDED"), where);
  else ctx.compare(before, after, where);
}
