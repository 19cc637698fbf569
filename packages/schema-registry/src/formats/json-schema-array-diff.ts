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
import { unevaluatedDiff } from "./json-schema-object-diff";

/**
 * An array schema's items as Confluent's loader reads them, across drafts: one schema for every item,
 * or a tuple (draft-07 `items: [...]`, 2020-12 `prefixItems`) followed by additional items
 * (`additionalItems`, or 2020-12's `items` after `prefixItems`).
 */
interface Items {
  all: JsonSchemaNode | undefined;
  tuple: JsonSchemaNode[];
  additional: unknown;
}

function itemsOf(schema: Schema): Items {
  if (Array.isArray(schema.prefixItems)) {
    return {
      all: undefined,
      tuple: schema.prefixItems as JsonSchemaNode[],
      additional: schema.items,
    };
  }
  if (Array.isArray(schema.items)) {
    return {
      all: undefined,
      tuple: schema.items as JsonSchemaNode[],
      additional: schema.additionalItems,
    };
  }
  return {
    all: schema.items as JsonSchemaNode | undefined,
    tuple: [],
    additional: schema.additionalItems,
  };
}

const permitsAdditional = (items: Items) => items.additional !== false;
const additionalSchema = (items: Items) =>
  typeof items.additional === "object" && items.additional !== null
    ? (items.additional as JsonSchemaNode)
    : null;
const additionalOf = (items: Items) => ({
  permits: permitsAdditional(items),
  schema: additionalSchema(items),
});
const unevaluated = (schema: Schema) =>
  schema.unevaluatedItems === undefined ? null : (schema.unevaluatedItems as JsonSchemaNode);

function isOpen(schema: Schema, items: Items): boolean {
  if (!permitsAdditional(items) || additionalSchema(items) !== null) return false;
  const rest = unevaluated(schema);
  return rest === null || isEmptySchema(rest);
}

function partialSchema(schema: Schema, items: Items): JsonSchemaNode | null {
  const additional = additionalSchema(items);
  if (additional !== null) return additional;
  const rest = unevaluated(schema);
  if (permitsAdditional(items) && rest !== null && rest !== false && !isEmptySchema(rest)) return rest;
  return null;
}

/**
 * Confluent's ArraySchemaDiff: the all-items schema, the tuple item by item against the other side's
 * content model, additional and unevaluated items, and the item-count, uniqueness and contains bounds.
 */
export function arrayDiff(ctx: DiffContext, original: Schema, update: Schema, path: string): void {
  const before = itemsOf(original);
  const after = itemsOf(update);
  ctx.compare(before.all, after.all, `${path}/items`);
  tupleDiff(ctx, original, update, before, after, path);
  // Located at additionalItems in every draft, as Confluent reports 2020-12's items-after-prefixItems.
  additionalDiff(ctx, additionalOf(before), additionalOf(after), `${path}/additionalItems`, "ITEMS");
  unevaluatedDiff(ctx, unevaluated(original), unevaluated(update), `${path}/unevaluatedItems`, "ITEMS");
  boundDiff(ctx, original, update, path, "maxItems", "MAX_ITEMS");
  boundDiff(ctx, original, update, path, "minItems", "MIN_ITEMS");
  const wasUnique = original.uniqueItems === true;
  const isUnique = update.uniqueItems === true;
  if (wasUnique !== isUnique)
    ctx.add(wasUnique ? "UNIQUE_ITEMS_REMOVED" : "UNIQUE_ITEMS_ADDED", `${path}/uniqueItems`);
  boundDiff(ctx, original, update, path, "maxContains", "MAX_CONTAINS");
  boundDiff(ctx, original, update, path, "minContains", "MIN_CONTAINS");
}

function tupleDiff(
  ctx: DiffContext,
  original: Schema,
  update: Schema,
  before: Items,
  after: Items,
  path: string,
) {
  const length = Math.max(before.tuple.length, after.tuple.length);
  for (let index = 0; index < length; index++) {
    const where = `${path}/items/${index}`;
    const was = before.tuple[index];
    const now = after.tuple[index];
    if (was !== undefined && now !== undefined) ctx.compare(was, now, where);
    else if (was !== undefined) itemRemoved(ctx, update, after, was, where);
    else if (now !== undefined) itemAdded(ctx, original, before, now, where);
  }
}

function itemRemoved(ctx: DiffContext, update: Schema, after: Items, was: JsonSchemaNode, where: string) {
  const open = isOpen(update, after);
  removedFromContentModel(ctx, "ITEM", open, open ? null : partialSchema(update, after), was, where);
}

function itemAdded(ctx: DiffContext, original: Schema, before: Items, now: JsonSchemaNode, where: string) {
  if (isOpen(original, before)) {
    ctx.add(
      isEmptySchema(now)
        ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
        : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
      where,
    );
    return;
  }
  const partial = partialSchema(original, before);
  if (partial !== null) {
    partialContentDiff(ctx, partial, now, where, "ITEM_ADDED");
  } else {
    ctx.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL", where);
  }
}
