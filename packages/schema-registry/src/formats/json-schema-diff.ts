import { arrayDiff } from "./json-schema-array-diff";
import { describeJsonSchemaChange, JSON_SCHEMA_COMPATIBLE_CHANGES } from "./json-schema-changes";
import { combinedDiff } from "./json-schema-combined-diff";
import type {
  DiffContext,
  JsonSchemaDifference,
  JsonSchemaDocument,
  JsonSchemaNode,
  Schema,
} from "./json-schema-diff-context";
import { type SchemaView, viewOf } from "./json-schema-kinds";
import { objectDiff } from "./json-schema-object-diff";
import { constDiff, enumDiff, notDiff, numberDiff, stringDiff } from "./json-schema-scalar-diff";
import type { Incompatibility } from "./schema-format";
import { sortedJson } from "./schema-format";

export type { JsonSchemaDocument } from "./json-schema-diff-context";

export interface JsonSchemaSide {
  document: JsonSchemaDocument;
  references: ReadonlyMap<string, JsonSchemaDocument>;
}

/** `$ref` hops followed before a reference is taken as unresolvable (a chain of refs to refs). */
const MAX_REF_HOPS = 64;

type PairResult = JsonSchemaDifference[] | "in progress";

/** What one comparison shares across its sub-comparisons: the memo and the cycle guard. */
interface Run {
  pairs: Map<JsonSchemaNode, Map<JsonSchemaNode, PairResult>>;
  /** Counts cycles assumed compatible; a result computed under such an assumption is not memoised. */
  assumptions: number;
}

/**
 * Every difference between the schema data was written with (`original`) and the one reading it
 * (`update`), compatible or not, as Confluent's JSON Schema diff names them.
 */
export function jsonSchemaDifferences(
  original: JsonSchemaSide,
  update: JsonSchemaSide,
): JsonSchemaDifference[] {
  const comparison = new Comparison(original, update, { pairs: new Map(), assumptions: 0 });
  comparison.compare(original.document, update.document, "#");
  return comparison.differences;
}

/** The differences that stop `update` from reading data written with `original` (Confluent's STRICT policy). */
export function compareJsonSchemas(original: JsonSchemaSide, update: JsonSchemaSide): Incompatibility[] {
  return jsonSchemaDifferences(original, update).filter((d) => !JSON_SCHEMA_COMPATIBLE_CHANGES.has(d.type));
}

function pointer(root: JsonSchemaNode, fragment: string): JsonSchemaNode | undefined {
  let node: unknown = root;
  for (const raw of fragment.split("/").filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node as JsonSchemaNode | undefined;
}

/** Follows `$ref`s (local pointers and referenced documents) to the schema they name. */
function resolve(side: JsonSchemaSide, node: JsonSchemaNode): JsonSchemaNode {
  let current = node;
  for (
    let hops = 0;
    hops < MAX_REF_HOPS && typeof current === "object" && typeof current.$ref === "string";
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

type KindDiff = (ctx: DiffContext, original: Schema, update: Schema, path: string) => void;

/** Each kind's own keywords (Confluent's StringSchemaDiff, NumberSchemaDiff, …); others have none. */
const KIND_DIFFS: Partial<Record<SchemaView["kind"], KindDiff>> = {
  string: stringDiff,
  number: numberDiff,
  enum: enumDiff,
  const: constDiff,
  not: notDiff,
  object: objectDiff,
  array: arrayDiff,
};

/** A difference found relative to a compared pair ("#…"), moved under where the pair sits. */
function placed(difference: JsonSchemaDifference, base: string): JsonSchemaDifference {
  const location = difference.location === "#" ? base : base + difference.location.slice(1);
  return {
    type: difference.type,
    location,
    description: describeJsonSchemaChange(difference.type, location),
  };
}

class Comparison implements DiffContext {
  readonly differences: JsonSchemaDifference[] = [];

  constructor(
    private readonly original: JsonSchemaSide,
    private readonly update: JsonSchemaSide,
    private readonly run: Run,
  ) {}

  add(type: string, location: string): void {
    this.differences.push({ type, location, description: describeJsonSchemaChange(type, location) });
  }

  addAll(differences: readonly JsonSchemaDifference[]): void {
    this.differences.push(...differences);
  }

  trial(
    original: JsonSchemaNode | undefined,
    update: JsonSchemaNode | undefined,
    location: string,
    reversed = false,
  ) {
    const sub = reversed
      ? new Comparison(this.update, this.original, this.run)
      : new Comparison(this.original, this.update, this.run);
    sub.compare(original, update, location);
    const compatible = sub.differences.every((d) => JSON_SCHEMA_COMPATIBLE_CHANGES.has(d.type));
    return { differences: sub.differences, compatible };
  }

  compare(
    originalRaw: JsonSchemaNode | undefined,
    updateRaw: JsonSchemaNode | undefined,
    location: string,
  ): void {
    if (originalRaw === undefined && updateRaw === undefined) return;
    if (originalRaw === undefined || updateRaw === undefined) {
      this.add(originalRaw === undefined ? "SCHEMA_ADDED" : "SCHEMA_REMOVED", location);
      return;
    }
    const original = resolve(this.original, originalRaw);
    const update = resolve(this.update, updateRaw);
    // Each pair of (dereferenced) schemas is compared once, its differences relative to the pair; a
    // pair met again while being compared is a recursive schema and is taken as compatible there.
    let byUpdate = this.run.pairs.get(original);
    if (!byUpdate) {
      byUpdate = new Map();
      this.run.pairs.set(original, byUpdate);
    }
    const known = byUpdate.get(update);
    if (known === "in progress") {
      this.run.assumptions++;
      return;
    }
    if (known) {
      for (const d of known) this.differences.push(placed(d, location));
      return;
    }
    byUpdate.set(update, "in progress");
    const assumptionsBefore = this.run.assumptions;
    const pair = new Comparison(this.original, this.update, this.run);
    pair.compareResolved(original, update, "#");
    if (this.run.assumptions === assumptionsBefore) byUpdate.set(update, pair.differences);
    else byUpdate.delete(update);
    for (const d of pair.differences) this.differences.push(placed(d, location));
  }

  /** Confluent's SchemaDiff.compareTypes: sum and product special cases, then kind by kind. */
  private compareResolved(original: JsonSchemaNode, update: JsonSchemaNode, path: string): void {
    const before = viewOf(original);
    const after = viewOf(update);
    if (before.kind !== "combined" && after.kind === "combined") {
      if (this.widenedIntoCombined(original, after, path)) return;
    } else if (before.kind === "combined" && after.kind !== "combined") {
      if (this.narrowedOutOfCombined(before, update, path)) return;
    }
    if (before.kind !== after.kind) {
      // false accepts nothing, so anything reads its data; an empty schema reads everything.
      if (before.kind === "false" || after.kind === "empty") return;
      // Kafka Connect's JSON converter marks bytes so; a change between its encodings keeps the data.
      if (before.schema["connect.type"] === "bytes" && after.schema["connect.type"] === "bytes") return;
      this.add("TYPE_CHANGED", path);
      return;
    }
    if (typeof original === "object" && typeof update === "object")
      this.annotationsDiff(original, update, path);
    this.kindDiff(before, after, path);
  }

  /** A schema that became one branch of an anyOf/oneOf (or a singleton combination) still reads its data. */
  private widenedIntoCombined(
    original: JsonSchemaNode,
    after: SchemaView & { kind: "combined" },
    path: string,
  ) {
    if (after.subschemas.length === 1) {
      const trial = this.trial(original, after.subschemas[0], path);
      if (trial.compatible) this.addAll(trial.differences);
      return trial.compatible;
    }
    if (after.criterion === "allOf") return false;
    const branches = after.subschemas.map((sub) => [original, sub] as const);
    return this.firstCompatible(branches, path, "SUM_TYPE_EXTENDED");
  }

  /** An allOf reduced to one of its branches (or a singleton unwrapped) reads what it read. */
  private narrowedOutOfCombined(
    before: SchemaView & { kind: "combined" },
    update: JsonSchemaNode,
    path: string,
  ) {
    if (before.subschemas.length === 1) {
      const trial = this.trial(before.subschemas[0], update, path);
      if (trial.compatible) this.addAll(trial.differences);
      return trial.compatible;
    }
    if (before.criterion !== "allOf") return false;
    const branches = before.subschemas.map((sub) => [sub, update] as const);
    return this.firstCompatible(branches, path, "PRODUCT_TYPE_NARROWED");
  }

  /**
   * The first of `pairs` (before, after) that compares compatible: its differences are taken, with
   * `type` for the branch chosen. False when no branch is compatible.
   */
  private firstCompatible(
    pairs: readonly (readonly [JsonSchemaNode, JsonSchemaNode])[],
    path: string,
    type: string,
  ): boolean {
    for (const [before, after] of pairs) {
      const trial = this.trial(before, after, path);
      if (!trial.compatible) continue;
      this.addAll(trial.differences);
      this.add(type, path);
      return true;
    }
    return false;
  }

  private annotationsDiff(original: Schema, update: Schema, path: string): void {
    const id = (s: Schema) =>
      typeof s.$id === "string" ? s.$id : typeof s.id === "string" ? s.id : undefined;
    if (id(original) !== id(update)) this.add("ID_CHANGED", path);
    if (original.title !== update.title) this.add("TITLE_CHANGED", path);
    if (original.description !== update.description) this.add("DESCRIPTION_CHANGED", path);
    if (sortedJson(original.default) !== sortedJson(update.default)) this.add("DEFAULT_CHANGED", path);
  }

  private kindDiff(before: SchemaView, after: SchemaView, path: string): void {
    if (before.kind === "combined") {
      if (after.kind === "combined") combinedDiff(this, before, after, path);
      return;
    }
    KIND_DIFFS[before.kind]?.(this, before.schema, after.schema, path);
  }
}
