import type { DiffContext, JsonSchemaDifference, JsonSchemaNode } from "./json-schema-diff-context";
import type { Criterion } from "./json-schema-kinds";
import { sortedJson } from "./schema-format";

interface Combined {
  criterion: Criterion;
  subschemas: JsonSchemaNode[];
}

/** Confluent's criterion rule: which change of allOf / anyOf / oneOf still accepts the old data. */
function criterionChange(original: Combined, update: Combined): string | null {
  if (original.criterion === update.criterion) return null;
  const single = (c: Combined) => c.subschemas.length === 1;
  const extended =
    update.criterion === "anyOf" ||
    (single(original) && single(update)) ||
    (single(original) && update.criterion === "oneOf") ||
    (single(update) && original.criterion === "allOf");
  return extended ? "COMBINED_TYPE_EXTENDED" : "COMBINED_TYPE_CHANGED";
}

/** Subschemas once each (a repeated branch changes nothing), in order. */
function distinct(subschemas: readonly JsonSchemaNode[]): JsonSchemaNode[] {
  const seen = new Set<string>();
  return subschemas.filter((sub) => {
    const key = sortedJson(sub);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A maximum matching of original to update subschemas over the compatible pairs (Kuhn's augmenting
 * paths; branch counts are small). Returns, per original index, the matched update index or -1.
 */
function maximumMatching(edges: readonly number[][], updates: number): number[] {
  const matchOfUpdate = new Array<number>(updates).fill(-1);
  const augment = (from: number, visited: boolean[]): boolean => {
    for (const to of edges[from]!) {
      if (visited[to]) continue;
      visited[to] = true;
      if (matchOfUpdate[to] === -1 || augment(matchOfUpdate[to]!, visited)) {
        matchOfUpdate[to] = from;
        return true;
      }
    }
    return false;
  };
  for (let from = 0; from < edges.length; from++) augment(from, new Array<boolean>(updates).fill(false));
  const matchOfOriginal = new Array<number>(edges.length).fill(-1);
  matchOfUpdate.forEach((from, to) => {
    if (from >= 0) matchOfOriginal[from] = to;
  });
  return matchOfOriginal;
}

/**
 * Confluent's CombinedSchemaDiff: the criterion change, more or fewer branches (more anyOf/oneOf
 * branches or fewer allOf ones accept more), and a one-to-one matching of compatible branches that
 * must cover the smaller side.
 */
export function combinedDiff(ctx: DiffContext, original: Combined, update: Combined, path: string): void {
  const change = criterionChange(original, update);
  if (change !== null) ctx.add(change, path);
  if (change === "COMBINED_TYPE_CHANGED") return;
  const before = distinct(original.subschemas);
  const after = distinct(update.subschemas);
  if (before.length < after.length) {
    ctx.add(update.criterion === "allOf" ? "PRODUCT_TYPE_EXTENDED" : "SUM_TYPE_EXTENDED", path);
  } else if (before.length > after.length) {
    ctx.add(original.criterion === "allOf" ? "PRODUCT_TYPE_NARROWED" : "SUM_TYPE_NARROWED", path);
  }
  const found = new Map<string, JsonSchemaDifference[]>();
  const edges = before.map((sub, i) =>
    after.flatMap((candidate, j) => {
      const trial = ctx.trial(sub, candidate, `${path}/${original.criterion}/${i}`);
      if (!trial.compatible) return [];
      found.set(`${i}:${j}`, trial.differences);
      return [j];
    }),
  );
  const matching = maximumMatching(edges, after.length);
  let matched = 0;
  matching.forEach((j, i) => {
    if (j < 0) return;
    matched++;
    ctx.addAll(found.get(`${i}:${j}`) ?? []);
  });
  if (matched < Math.min(before.length, after.length)) ctx.add("COMBINED_TYPE_SUBSCHEMAS_CHANGED", path);
}
