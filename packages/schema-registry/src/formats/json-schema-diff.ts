import type { Incompatibility } from "./schema-format";

export type JsonSchemaDocument = boolean | { [keyword: string]: unknown };
type Node = JsonSchemaDocument;

export interface JsonSchemaSide {
  document: JsonSchemaDocument;
  references: ReadonlyMap<string, JsonSchemaDocument>;
}

/** The depth past which a recursive `$ref` pair is taken as already compared. */
const MAX_DIFF_DEPTH = 64;

interface Context {
  original: JsonSchemaSide;
  update: JsonSchemaSide;
  issues: Incompatibility[];
  depth: number;
}

/**
 * Confluent's JSON Schema rules (its json diff's COMPATIBLE_CHANGES): `original` is the schema the
 * data was written with, `update` the one reading it. Only what Confluent counts incompatible is
 * reported: a narrowed type, a property added to an open content model with a non-empty schema or
 * removed from a closed one, a newly required property without a default, tightened string,
 * number, array and object bounds, fewer enum values or sum-type branches.
 */
export function compareJsonSchemas(original: JsonSchemaSide, update: JsonSchemaSide): Incompatibility[] {
  const ctx: Context = { original, update, issues: [], depth: 0 };
  compare(ctx, original.document, update.document, "#");
  return ctx.issues;
}

function issue(ctx: Context, type: string, location: string, description: string): void {
  ctx.issues.push({ type, location, description });
}

function isCompatible(ctx: Context, original: Node, update: Node, path: string): boolean {
  const sub: Context = { ...ctx, issues: [], depth: ctx.depth + 1 };
  compare(sub, original, update, path);
  return sub.issues.length === 0;
}

function pointer(root: Node, fragment: string): Node | undefined {
  let node: unknown = root;
  for (const raw of fragment.split("/").filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node as Node | undefined;
}

/** Follows `$ref`s (local pointers and referenced documents) to the schema they name. */
function resolve(side: JsonSchemaSide, node: Node): Node {
  let current = node;
  for (
    let hops = 0;
    hops < MAX_DIFF_DEPTH && typeof current === "object" && typeof current.$ref === "string";
    hops++
  ) {
    const [document, fragment = ""] = current.$ref.split("#") as [string, string?];
    const root = document === "" ? side.document : side.references.get(document);
    const target = root === undefined ? undefined : pointer(root, fragment);
    if (target === undefined) return current;
    current = target;
  }
  return current;
}

type Kind =
  | "false"
  | "empty"
  | "combined"
  | "not"
  | "enum"
  | "const"
  | "object"
  | "array"
  | "string"
  | "number"
  | "boolean"
  | "null";

const KEYWORD_KINDS: [Kind, string[]][] = [
  [
    "object",
    [
      "properties",
      "required",
      "additionalProperties",
      "patternProperties",
      "minProperties",
      "maxProperties",
      "dependencies",
    ],
  ],
  ["array", ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"]],
  ["string", ["minLength", "maxLength", "pattern", "format"]],
  ["number", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]],
];

function combinator(node: Node): "allOf" | "anyOf" | "oneOf" | null {
  if (typeof node !== "object") return null;
  if (Array.isArray(node.type) && node.type.length > 1) return "anyOf";
  for (const key of ["allOf", "anyOf", "oneOf"] as const) if (Array.isArray(node[key])) return key;
  return null;
}

function subschemas(node: Node): Node[] {
  if (typeof node !== "object") return [];
  if (Array.isArray(node.type) && node.type.length > 1) {
    return node.type.map((type) => ({ ...node, type }));
  }
  const key = combinator(node);
  return key ? (node[key] as Node[]) : [];
}

function kindOf(node: Node): Kind {
  if (node === false) return "false";
  if (node === true) return "empty";
  if (combinator(node)) return "combined";
  if ("not" in node) return "not";
  if (Array.isArray(node.enum)) return "enum";
  if ("const" in node) return "const";
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (type === "integer") return "number";
  if (typeof type === "string") return type as Kind;
  for (const [kind, keywords] of KEYWORD_KINDS) if (keywords.some((k) => k in node)) return kind;
  return "empty";
}

function compare(ctx: Context, originalRaw: Node, updateRaw: Node, path: string): void {
  if (ctx.depth > MAX_DIFF_DEPTH) return;
  const original = resolve(ctx.original, originalRaw);
  const update = resolve(ctx.update, updateRaw);
  const originalKind = kindOf(original);
  const updateKind = kindOf(update);
  if (originalKind !== "combined" && updateKind === "combined") {
    const subs = subschemas(update);
    const sum = combinator(update) !== "allOf" || subs.length === 1;
    if (sum && subs.some((sub) => isCompatible(ctx, original, sub, path))) return;
  } else if (originalKind === "combined" && updateKind !== "combined") {
    const subs = subschemas(original);
    if (subs.length === 1 && isCompatible(ctx, subs[0]!, update, path)) return;
  }
  if (originalKind !== updateKind) {
    if (originalKind === "false" || updateKind === "empty") return;
    issue(ctx, "TYPE_CHANGED", path, `type changed from ${originalKind} to ${updateKind}`);
    return;
  }
  if (typeof original !== "object" || typeof update !== "object") return;
  KIND_DIFFS[originalKind]?.(ctx, original, update, path);
}

type Schema = { [keyword: string]: unknown };
type KindDiff = (ctx: Context, original: Schema, update: Schema, path: string) => void;

/** A bound that may only widen: `looser(original, update)` says the update accepts at least as much. */
function bound(
  ctx: Context,
  original: Schema,
  update: Schema,
  path: string,
  keyword: string,
  looser: (before: number, after: number) => boolean,
): void {
  const before = original[keyword];
  const after = update[keyword];
  if (after === undefined || after === before) return;
  if (typeof after === "boolean" || typeof before === "boolean") {
    if (after === true && before !== true)
      issue(ctx, `${keyword.toUpperCase()}_ADDED`, `${path}/${keyword}`, `${keyword} added`);
    return;
  }
  if (before === undefined) {
    issue(ctx, `${snake(keyword)}_ADDED`, `${path}/${keyword}`, `${keyword} ${String(after)} added`);
  } else if (!looser(Number(before), Number(after))) {
    issue(
      ctx,
      `${snake(keyword)}_CHANGED`,
      `${path}/${keyword}`,
      `${keyword} tightened from ${String(before)} to ${String(after)}`,
    );
  }
}

const snake = (keyword: string) => keyword.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
const grows = (before: number, after: number) => after >= before;
const shrinks = (before: number, after: number) => after <= before;

const stringDiff: KindDiff = (ctx, original, update, path) => {
  bound(ctx, original, update, path, "maxLength", grows);
  bound(ctx, original, update, path, "minLength", shrinks);
  if (update.pattern !== undefined && update.pattern !== original.pattern) {
    issue(
      ctx,
      original.pattern === undefined ? "PATTERN_ADDED" : "PATTERN_CHANGED",
      `${path}/pattern`,
      "pattern added or changed",
    );
  }
};

const numberDiff: KindDiff = (ctx, original, update, path) => {
  if (update.type === "integer" && original.type !== "integer") {
    issue(ctx, "TYPE_NARROWED", path, "type narrowed from number to integer");
  }
  bound(ctx, original, update, path, "maximum", grows);
  bound(ctx, original, update, path, "exclusiveMaximum", grows);
  bound(ctx, original, update, path, "minimum", shrinks);
  bound(ctx, original, update, path, "exclusiveMinimum", shrinks);
  bound(ctx, original, update, path, "multipleOf", (before, after) => before % after === 0);
};

const enumDiff: KindDiff = (ctx, original, update, path) => {
  const after = new Set((update.enum as unknown[]).map((v) => JSON.stringify(v)));
  const missing = (original.enum as unknown[]).filter((v) => !after.has(JSON.stringify(v)));
  if (missing.length > 0)
    issue(ctx, "ENUM_ARRAY_NARROWED", `${path}/enum`, `enum lost ${JSON.stringify(missing)}`);
};

const constDiff: KindDiff = (ctx, original, update, path) => {
  if (JSON.stringify(original.const) !== JSON.stringify(update.const))
    issue(ctx, "CONST_CHANGED", `${path}/const`, "const changed");
};

const notDiff: KindDiff = (ctx, original, update, path) => {
  // The negation reverses the direction: the update may exclude less, never more.
  if (
    !isCompatible(
      { ...ctx, original: ctx.update, update: ctx.original },
      update.not as Node,
      original.not as Node,
      `${path}/not`,
    )
  ) {
    issue(ctx, "NOT_TYPE_EXTENDED", `${path}/not`, "the excluded schema was extended");
  }
};

function matchAll(ctx: Context, from: Node[], to: Node[], path: string, fromIsOriginal: boolean): boolean {
  const used = new Set<number>();
  return from.every((sub) => {
    const index = to.findIndex(
      (candidate, i) =>
        !used.has(i) &&
        (fromIsOriginal ? isCompatible(ctx, sub, candidate, path) : isCompatible(ctx, candidate, sub, path)),
    );
    if (index < 0) return false;
    used.add(index);
    return true;
  });
}

const combinedDiff: KindDiff = (ctx, original, update, path) => {
  const before = combinator(original)!;
  const after = combinator(update)!;
  if (before !== after && !(before === "oneOf" && after === "anyOf")) {
    issue(ctx, "COMBINED_TYPE_CHANGED", path, `${before} changed to ${after}`);
    return;
  }
  const originalSubs = subschemas(original);
  const updateSubs = subschemas(update);
  if (after === "allOf") {
    if (!matchAll(ctx, updateSubs, originalSubs, path, false)) {
      issue(ctx, "PRODUCT_TYPE_EXTENDED", path, "allOf gained or changed a subschema");
    }
  } else if (updateSubs.length < originalSubs.length) {
    issue(ctx, "SUM_TYPE_NARROWED", path, `${after} lost a subschema`);
  } else if (!matchAll(ctx, originalSubs, updateSubs, path, true)) {
    issue(ctx, "COMBINED_TYPE_SUBSCHEMAS_CHANGED", path, `a subschema of ${after} changed incompatibly`);
  }
};

const properties = (schema: Schema) => (schema.properties ?? {}) as Record<string, Node>;
const required = (schema: Schema) => new Set((schema.required ?? []) as string[]);
const hasDefault = (node: Node | undefined) => typeof node === "object" && "default" in node;
/** Additional properties as a schema of their own (null: unconstrained or forbidden). */
const additionalSchema = (schema: Schema) =>
  typeof schema.additionalProperties === "object" ? (schema.additionalProperties as Node) : null;
const permitsAdditional = (schema: Schema) => schema.additionalProperties !== false;
const isOpen = (schema: Schema) =>
  Object.keys((schema.patternProperties ?? {}) as object).length === 0 &&
  additionalSchema(schema) === null &&
  permitsAdditional(schema);

function partialSchema(schema: Schema, key: string): Node | null {
  for (const [pattern, node] of Object.entries((schema.patternProperties ?? {}) as Record<string, Node>)) {
    if (new RegExp(pattern, "u").test(key)) return node;
  }
  return additionalSchema(schema);
}

function isEmptySchema(node: Node): boolean {
  return node === true || (typeof node === "object" && kindOf(node) === "empty");
}

const objectDiff: KindDiff = (ctx, original, update, path) => {
  const before = properties(original);
  const after = properties(update);
  const beforeRequired = required(original);
  const afterRequired = required(update);
  for (const key of Object.keys(before)) {
    if (key in after && !beforeRequired.has(key) && afterRequired.has(key) && !hasDefault(after[key])) {
      issue(
        ctx,
        "REQUIRED_ATTRIBUTE_ADDED",
        `${path}/required/${key}`,
        `property "${key}" became required without a default`,
      );
    }
  }
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const where = `${path}/properties/${key}`;
    const was = before[key];
    const now = after[key];
    if (was !== undefined && now !== undefined) compare(ctx, was, now, where);
    else if (was !== undefined) propertyRemoved(ctx, update, key, was, where);
    else if (now !== undefined) propertyAdded(ctx, original, update, key, now, where);
  }
  additionalDiff(ctx, original, update, path);
  bound(ctx, original, update, path, "maxProperties", grows);
  bound(ctx, original, update, path, "minProperties", shrinks);
};

function propertyRemoved(ctx: Context, update: Schema, key: string, was: Node, where: string): void {
  if (isOpen(update)) return;
  const partial = partialSchema(update, key);
  if (partial !== null) {
    if (!isCompatible(ctx, was, partial, where)) {
      issue(
        ctx,
        "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
        where,
        `property "${key}" removed, and the remaining content model does not accept it`,
      );
    }
  } else if (was !== false) {
    issue(
      ctx,
      "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
      where,
      `property "${key}" removed from a closed content model`,
    );
  }
}

function propertyAdded(
  ctx: Context,
  original: Schema,
  update: Schema,
  key: string,
  now: Node,
  where: string,
): void {
  if (isOpen(original)) {
    if (!isEmptySchema(now)) {
      issue(
        ctx,
        "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
        where,
        `property "${key}" added to an open content model`,
      );
    }
    return;
  }
  const partial = partialSchema(original, key);
  if (partial !== null && !isCompatible(ctx, partial, now, where)) {
    issue(
      ctx,
      "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
      where,
      `property "${key}" added, and the original content model allowed other values for it`,
    );
  }
  if (required(update).has(key) && !hasDefault(now)) {
    issue(
      ctx,
      "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
      where,
      `required property "${key}" added without a default`,
    );
  }
}

function additionalDiff(ctx: Context, original: Schema, update: Schema, path: string): void {
  const where = `${path}/additionalProperties`;
  if (permitsAdditional(original) && !permitsAdditional(update)) {
    issue(ctx, "ADDITIONAL_PROPERTIES_REMOVED", where, "additional properties no longer allowed");
    return;
  }
  const before = additionalSchema(original);
  const after = additionalSchema(update);
  if (before === null && after !== null && permitsAdditional(original)) {
    issue(ctx, "ADDITIONAL_PROPERTIES_NARROWED", where, "additional properties now constrained by a schema");
  } else if (before !== null && after !== null) {
    compare(ctx, before, after, where);
  }
}

const arrayDiff: KindDiff = (ctx, original, update, path) => {
  const before = original.items;
  const after = update.items;
  if (Array.isArray(before) && Array.isArray(after)) {
    before.forEach((item, i) => {
      if (i < after.length) compare(ctx, item as Node, after[i] as Node, `${path}/items/${i}`);
    });
  } else if (before !== undefined && after !== undefined && !Array.isArray(before) && !Array.isArray(after)) {
    compare(ctx, before as Node, after as Node, `${path}/items`);
  } else if (before === undefined && after !== undefined && !isEmptySchema(after as Node)) {
    issue(ctx, "ITEMS_NARROWED", `${path}/items`, "items now constrained by a schema");
  }
  bound(ctx, original, update, path, "maxItems", grows);
  bound(ctx, original, update, path, "minItems", shrinks);
  bound(ctx, original, update, path, "uniqueItems", () => true);
};

const KIND_DIFFS: Partial<Record<Kind, KindDiff>> = {
  string: stringDiff,
  number: numberDiff,
  enum: enumDiff,
  const: constDiff,
  not: notDiff,
  combined: combinedDiff,
  object: objectDiff,
  array: arrayDiff,
};
