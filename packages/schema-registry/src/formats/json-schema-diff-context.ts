import type { Incompatibility } from "./schema-format";

export type JsonSchemaDocument = boolean | { [keyword: string]: unknown };
export type JsonSchemaNode = JsonSchemaDocument;
export type Schema = { [keyword: string]: unknown };

/** A difference between the original schema and its update, compatible or not. */
export type JsonSchemaDifference = Incompatibility;

/**
 * What each keyword family's diff is handed: where to record a difference and how to compare the
 * subschemas it holds (the comparison itself lives in json-schema-diff, which dispatches here).
 */
export interface DiffContext {
  /** Records a difference at `location` (a JSON pointer from `#`). */
  add(type: string, location: string): void;
  /** Compares two subschemas (absent: undefined) at `location`, recording their differences here. */
  compare(original: JsonSchemaNode | undefined, update: JsonSchemaNode | undefined, location: string): void;
  /**
   * Compares without recording: the differences found and whether all are compatible.
   * `reversed` compares the update's subschema as the original (a `not` narrows the other way).
   */
  trial(
    original: JsonSchemaNode | undefined,
    update: JsonSchemaNode | undefined,
    location: string,
    reversed?: boolean,
  ): { differences: JsonSchemaDifference[]; compatible: boolean };
  /** Records differences a trial found. */
  addAll(differences: readonly JsonSchemaDifference[]): void;
}

/**
 * A numeric keyword compared as Confluent does: present on one side only is ADDED / REMOVED, else
 * INCREASED / DECREASED (names: the keyword's difference prefix, e.g. MAX_LENGTH).
 */
export function boundDiff(
  ctx: DiffContext,
  original: Schema,
  update: Schema,
  path: string,
  keyword: string,
  prefix: string,
): void {
  const before = typeof original[keyword] === "number" ? (original[keyword] as number) : undefined;
  const after = typeof update[keyword] === "number" ? (update[keyword] as number) : undefined;
  if (before === after) return;
  const where = `${path}/${keyword}`;
  if (before === undefined) ctx.add(`${prefix}_ADDED`, where);
  else if (after === undefined) ctx.add(`${prefix}_REMOVED`, where);
  else ctx.add(before < after ? `${prefix}_INCREASED` : `${prefix}_DECREASED`, where);
}

/**
 * A property or item present on one side only, held to the other side's partially open content
 * model (`change`: which side and what, e.g. PROPERTY_REMOVED): covered when that model's schema
 * reads it compatibly, its own differences recorded either way.
 */
export function partialContentDiff(
  ctx: DiffContext,
  original: JsonSchemaNode,
  update: JsonSchemaNode,
  where: string,
  change: `${"PROPERTY" | "ITEM"}_${"ADDED" | "REMOVED"}`,
): void {
  const trial = ctx.trial(original, update, where);
  ctx.addAll(trial.differences);
  ctx.add(`${change}_${trial.compatible ? "IS" : "NOT"}_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`, where);
}

/**
 * A property or item of the original that the update no longer names: what reads it is the update's
 * content model — open reads anything, partially open (`partial`: its schema) reads what that schema
 * reads, closed reads nothing (fine only if the original allowed nothing there either: `false`).
 */
export function removedFromContentModel(
  ctx: DiffContext,
  what: "PROPERTY" | "ITEM",
  open: boolean,
  partial: JsonSchemaNode | null,
  was: JsonSchemaNode,
  where: string,
): void {
  if (open) ctx.add(`${what}_REMOVED_FROM_OPEN_CONTENT_MODEL`, where);
  else if (partial !== null) partialContentDiff(ctx, was, partial, where, `${what}_REMOVED`);
  else if (was === false) ctx.add(`${what}_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL`, where);
  else ctx.add(`${what}_REMOVED_FROM_CLOSED_CONTENT_MODEL`, where);
}

/** What a side allows beyond the named properties or items: anything at all, and the schema it is held to. */
export interface AdditionalContent {
  /** False only for `false` (nothing more allowed). */
  permits: boolean;
  /** The schema they are held to (null: none, any value). */
  schema: JsonSchemaNode | null;
}

/**
 * additionalProperties / additionalItems (`family`), as Confluent compares them: allowed on one
 * side only is ADDED / REMOVED, a schema on one side only NARROWED / EXTENDED, two schemas compared.
 */
export function additionalDiff(
  ctx: DiffContext,
  before: AdditionalContent,
  after: AdditionalContent,
  where: string,
  family: "PROPERTIES" | "ITEMS",
): void {
  const type = (change: string) => `ADDITIONAL_${family}_${change}`;
  if (before.permits !== after.permits) ctx.add(type(after.permits ? "ADDED" : "REMOVED"), where);
  else if (before.schema === null && after.schema !== null) ctx.add(type("NARROWED"), where);
  else if (before.schema !== null && after.schema === null) ctx.add(type("EXTENDED"), where);
  else if (before.schema !== null && after.schema !== null) ctx.compare(before.schema, after.schema, where);
}
