/**
 * One row per difference type Confluent's JSON Schema diff names (its Difference.Type), each a schema
 * pair that shows it and whether the update still reads the original's data under its STRICT policy
 * (the registry default). Not covered: RESERVED_PROPERTY_* (schema metadata, which this registry
 * does not keep) and the deprecated PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL (Confluent no longer emits it).
 */
export interface DifferenceRow {
  type: string;
  before: unknown;
  after: unknown;
  compatible: boolean;
}

const str = (extra: Record<string, unknown> = {}) => ({ type: "string", ...extra });
const num = (extra: Record<string, unknown> = {}) => ({ type: "number", ...extra });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  obj(properties, { additionalProperties: false, ...extra });
const arr = (extra: Record<string, unknown> = {}) => ({ type: "array", ...extra });
const tuple = (items: unknown[], extra: Record<string, unknown> = {}) => arr({ items, ...extra });
const draft2020 = (schema: Record<string, unknown>) => ({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  ...schema,
});
const S = { type: "string" };
const N = { type: "number" };

/** A bound keyword's four differences: added and lowered/raised narrow or widen as `widens` says. */
function bounds(
  prefix: string,
  schema: (extra: Record<string, unknown>) => unknown,
  keyword: string,
  low: number,
  high: number,
  raisingWidens: boolean,
): DifferenceRow[] {
  return [
    { type: `${prefix}_ADDED`, before: schema({}), after: schema({ [keyword]: low }), compatible: false },
    { type: `${prefix}_REMOVED`, before: schema({ [keyword]: low }), after: schema({}), compatible: true },
    {
      type: `${prefix}_INCREASED`,
      before: schema({ [keyword]: low }),
      after: schema({ [keyword]: high }),
      compatible: raisingWidens,
    },
    {
      type: `${prefix}_DECREASED`,
      before: schema({ [keyword]: high }),
      after: schema({ [keyword]: low }),
      compatible: !raisingWidens,
    },
  ];
}

const withContains = (extra: Record<string, unknown>) => draft2020(arr({ contains: N, ...extra }));

export const JSON_SCHEMA_DIFFERENCE_ROWS: DifferenceRow[] = [
  {
    type: "ID_CHANGED",
    before: { $id: "https://example.com/a.json" },
    after: { $id: "https://example.com/b.json" },
    compatible: true,
  },
  {
    type: "DESCRIPTION_CHANGED",
    before: str({ description: "a" }),
    after: str({ description: "b" }),
    compatible: true,
  },
  { type: "TITLE_CHANGED", before: str({ title: "a" }), after: str({ title: "b" }), compatible: true },
  { type: "DEFAULT_CHANGED", before: str({ default: "a" }), after: str({ default: "b" }), compatible: true },
  { type: "SCHEMA_ADDED", before: arr(), after: arr({ items: S }), compatible: false },
  { type: "SCHEMA_REMOVED", before: arr({ items: S }), after: arr(), compatible: true },
  { type: "TYPE_EXTENDED", before: { type: "integer" }, after: N, compatible: true },
  { type: "TYPE_NARROWED", before: N, after: { type: "integer" }, compatible: false },
  { type: "TYPE_CHANGED", before: S, after: N, compatible: false },
  ...bounds("MAX_LENGTH", str, "maxLength", 5, 10, true),
  ...bounds("MIN_LENGTH", str, "minLength", 5, 10, false),
  { type: "PATTERN_ADDED", before: S, after: str({ pattern: "^a" }), compatible: false },
  { type: "PATTERN_REMOVED", before: str({ pattern: "^a" }), after: S, compatible: true },
  {
    type: "PATTERN_CHANGED",
    before: str({ pattern: "^a" }),
    after: str({ pattern: "^b" }),
    compatible: false,
  },
  ...bounds("MAXIMUM", num, "maximum", 5, 10, true),
  ...bounds("MINIMUM", num, "minimum", 5, 10, false),
  ...bounds("EXCLUSIVE_MAXIMUM", num, "exclusiveMaximum", 5, 10, true),
  ...bounds("EXCLUSIVE_MINIMUM", num, "exclusiveMinimum", 5, 10, false),
  { type: "MULTIPLE_OF_ADDED", before: N, after: num({ multipleOf: 2 }), compatible: false },
  { type: "MULTIPLE_OF_REMOVED", before: num({ multipleOf: 2 }), after: N, compatible: true },
  {
    type: "MULTIPLE_OF_EXPANDED",
    before: num({ multipleOf: 0.5 }),
    after: num({ multipleOf: 1.5 }),
    compatible: false,
  },
  {
    type: "MULTIPLE_OF_REDUCED",
    before: num({ multipleOf: 0.3 }),
    after: num({ multipleOf: 0.1 }),
    compatible: true,
  },
  {
    type: "MULTIPLE_OF_CHANGED",
    before: num({ multipleOf: 2 }),
    after: num({ multipleOf: 3 }),
    compatible: false,
  },
  {
    type: "REQUIRED_ATTRIBUTE_ADDED",
    before: closed({ a: S }),
    after: closed({ a: S }, { required: ["a"] }),
    compatible: false,
  },
  {
    type: "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
    before: closed({ a: S }),
    after: closed({ a: str({ default: "x" }) }, { required: ["a"] }),
    compatible: true,
  },
  {
    type: "REQUIRED_ATTRIBUTE_REMOVED",
    before: closed({ a: S }, { required: ["a"] }),
    after: closed({ a: S }),
    compatible: true,
  },
  ...bounds("MAX_PROPERTIES", (extra) => obj({}, extra), "maxProperties", 2, 4, true),
  ...bounds("MIN_PROPERTIES", (extra) => obj({}, extra), "minProperties", 2, 4, false),
  { type: "ADDITIONAL_PROPERTIES_ADDED", before: closed({ a: S }), after: obj({ a: S }), compatible: true },
  {
    type: "ADDITIONAL_PROPERTIES_REMOVED",
    before: obj({ a: S }),
    after: closed({ a: S }),
    compatible: false,
  },
  {
    type: "ADDITIONAL_PROPERTIES_EXTENDED",
    before: obj({ a: S }, { additionalProperties: S }),
    after: obj({ a: S }),
    compatible: true,
  },
  {
    type: "ADDITIONAL_PROPERTIES_NARROWED",
    before: obj({ a: S }),
    after: obj({ a: S }, { additionalProperties: S }),
    compatible: false,
  },
  {
    type: "DEPENDENCY_ARRAY_ADDED",
    before: obj({}),
    after: obj({}, { dependencies: { a: ["b"] } }),
    compatible: false,
  },
  {
    type: "DEPENDENCY_ARRAY_REMOVED",
    before: obj({}, { dependencies: { a: ["b"] } }),
    after: obj({}),
    compatible: true,
  },
  {
    type: "DEPENDENCY_ARRAY_EXTENDED",
    before: obj({}, { dependencies: { a: ["b"] } }),
    after: obj({}, { dependencies: { a: ["b", "c"] } }),
    compatible: false,
  },
  {
    type: "DEPENDENCY_ARRAY_NARROWED",
    before: obj({}, { dependencies: { a: ["b", "c"] } }),
    after: obj({}, { dependencies: { a: ["b"] } }),
    compatible: true,
  },
  {
    type: "DEPENDENCY_ARRAY_CHANGED",
    before: obj({}, { dependencies: { a: ["b"] } }),
    after: obj({}, { dependencies: { a: ["c"] } }),
    compatible: false,
  },
  {
    type: "DEPENDENCY_SCHEMA_ADDED",
    before: obj({}),
    after: obj({}, { dependencies: { a: { required: ["b"] } } }),
    compatible: false,
  },
  {
    type: "DEPENDENCY_SCHEMA_REMOVED",
    before: obj({}, { dependencies: { a: { required: ["b"] } } }),
    after: obj({}),
    compatible: true,
  },
  {
    type: "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
    before: obj({ a: S }),
    after: obj({ a: S, b: S }, { required: ["b"] }),
    compatible: false,
  },
  {
    type: "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL",
    before: obj({ a: S }),
    after: obj({ a: S, b: str({ default: "x" }) }, { required: ["b"] }),
    compatible: false,
  },
  {
    type: "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
    before: obj({ a: S }),
    after: obj({ a: S, b: S }),
    compatible: false,
  },
  {
    type: "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
    before: obj({ a: S }),
    after: obj({ a: S, b: {} }),
    compatible: true,
  },
  {
    type: "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
    before: closed({ a: S }),
    after: closed({ a: S, b: S }, { required: ["b"] }),
    compatible: false,
  },
  {
    type: "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
    before: closed({ a: S }),
    after: closed({ a: S, b: str({ default: "x" }) }, { required: ["b"] }),
    compatible: true,
  },
  {
    type: "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
    before: closed({ a: S }),
    after: closed({ a: S, b: S }),
    compatible: true,
  },
  {
    type: "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
    before: obj({ a: S, b: S }),
    after: obj({ a: S }),
    compatible: true,
  },
  {
    type: "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
    before: closed({ a: S, b: false }),
    after: closed({ a: S }),
    compatible: true,
  },
  {
    type: "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
    before: closed({ a: S, b: S }),
    after: closed({ a: S }),
    compatible: false,
  },
  {
    type: "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: closed({ a: S, s_b: S }),
    after: closed({ a: S }, { patternProperties: { "^s_": S } }),
    compatible: true,
  },
  {
    type: "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: closed({ a: S, n_b: S }),
    after: closed({ a: S }, { patternProperties: { "^n_": N } }),
    compatible: false,
  },
  {
    type: "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: obj({ a: S }, { additionalProperties: str({ maxLength: 5 }) }),
    after: obj({ a: S, b: S }, { additionalProperties: str({ maxLength: 5 }) }),
    compatible: true,
  },
  {
    type: "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: obj({ a: S }, { additionalProperties: S }),
    after: obj({ a: S, b: N }, { additionalProperties: S }),
    compatible: false,
  },
  {
    type: "UNEVALUATED_PROPERTIES_ADDED",
    before: draft2020(obj({ a: S }, { unevaluatedProperties: false })),
    after: draft2020(obj({ a: S })),
    compatible: true,
  },
  {
    type: "UNEVALUATED_PROPERTIES_REMOVED",
    before: draft2020(obj({ a: S })),
    after: draft2020(obj({ a: S }, { unevaluatedProperties: false })),
    compatible: false,
  },
  {
    type: "UNEVALUATED_PROPERTIES_EXTENDED",
    before: draft2020(obj({ a: S }, { unevaluatedProperties: S })),
    after: draft2020(obj({ a: S })),
    compatible: true,
  },
  {
    type: "UNEVALUATED_PROPERTIES_NARROWED",
    before: draft2020(obj({ a: S })),
    after: draft2020(obj({ a: S }, { unevaluatedProperties: S })),
    compatible: false,
  },
  ...bounds("MAX_ITEMS", arr, "maxItems", 2, 4, true),
  ...bounds("MIN_ITEMS", arr, "minItems", 2, 4, false),
  ...bounds("MAX_CONTAINS", withContains, "maxContains", 2, 4, true),
  ...bounds("MIN_CONTAINS", withContains, "minContains", 2, 4, false),
  { type: "UNIQUE_ITEMS_ADDED", before: arr(), after: arr({ uniqueItems: true }), compatible: false },
  { type: "UNIQUE_ITEMS_REMOVED", before: arr({ uniqueItems: true }), after: arr(), compatible: true },
  {
    type: "ADDITIONAL_ITEMS_ADDED",
    before: tuple([S], { additionalItems: false }),
    after: tuple([S]),
    compatible: true,
  },
  {
    type: "ADDITIONAL_ITEMS_REMOVED",
    before: tuple([S]),
    after: tuple([S], { additionalItems: false }),
    compatible: false,
  },
  {
    type: "ADDITIONAL_ITEMS_EXTENDED",
    before: tuple([S], { additionalItems: N }),
    after: tuple([S]),
    compatible: true,
  },
  {
    type: "ADDITIONAL_ITEMS_NARROWED",
    before: tuple([S]),
    after: tuple([S], { additionalItems: N }),
    compatible: false,
  },
  {
    type: "UNEVALUATED_ITEMS_ADDED",
    before: draft2020(arr({ prefixItems: [S], unevaluatedItems: false })),
    after: draft2020(arr({ prefixItems: [S] })),
    compatible: true,
  },
  {
    type: "UNEVALUATED_ITEMS_REMOVED",
    before: draft2020(arr({ prefixItems: [S] })),
    after: draft2020(arr({ prefixItems: [S], unevaluatedItems: false })),
    compatible: false,
  },
  {
    type: "UNEVALUATED_ITEMS_EXTENDED",
    before: draft2020(arr({ prefixItems: [S], unevaluatedItems: N })),
    after: draft2020(arr({ prefixItems: [S] })),
    compatible: true,
  },
  {
    type: "UNEVALUATED_ITEMS_NARROWED",
    before: draft2020(arr({ prefixItems: [S] })),
    after: draft2020(arr({ prefixItems: [S], unevaluatedItems: N })),
    compatible: false,
  },
  { type: "ITEM_ADDED_TO_OPEN_CONTENT_MODEL", before: tuple([S]), after: tuple([S, N]), compatible: false },
  {
    type: "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
    before: tuple([S]),
    after: tuple([S, {}]),
    compatible: true,
  },
  {
    type: "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
    before: tuple([S], { additionalItems: false }),
    after: tuple([S, N], { additionalItems: false }),
    compatible: true,
  },
  {
    type: "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
    before: tuple([S, N]),
    after: tuple([S]),
    compatible: true,
  },
  {
    type: "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
    before: tuple([S, false], { additionalItems: false }),
    after: tuple([S], { additionalItems: false }),
    compatible: true,
  },
  {
    type: "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL",
    before: tuple([S, N], { additionalItems: false }),
    after: tuple([S], { additionalItems: false }),
    compatible: false,
  },
  {
    type: "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: tuple([S, N], { additionalItems: N }),
    after: tuple([S], { additionalItems: N }),
    compatible: true,
  },
  {
    type: "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: tuple([S, N], { additionalItems: S }),
    after: tuple([S], { additionalItems: S }),
    compatible: false,
  },
  {
    type: "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: tuple([S], { additionalItems: N }),
    after: tuple([S, N], { additionalItems: N }),
    compatible: true,
  },
  {
    type: "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
    before: tuple([S], { additionalItems: S }),
    after: tuple([S, N], { additionalItems: S }),
    compatible: false,
  },
  { type: "ENUM_ARRAY_EXTENDED", before: { enum: ["a"] }, after: { enum: ["a", "b"] }, compatible: true },
  { type: "ENUM_ARRAY_NARROWED", before: { enum: ["a", "b"] }, after: { enum: ["a"] }, compatible: false },
  {
    type: "ENUM_ARRAY_CHANGED",
    before: { enum: ["a", "b"] },
    after: { enum: ["a", "c"] },
    compatible: false,
  },
  { type: "ENUM_ARRAY_CHANGED", before: { const: "a" }, after: { const: "b" }, compatible: false },
  { type: "COMBINED_TYPE_EXTENDED", before: { oneOf: [S, N] }, after: { anyOf: [S, N] }, compatible: true },
  { type: "COMBINED_TYPE_CHANGED", before: { anyOf: [S, N] }, after: { oneOf: [S, N] }, compatible: false },
  {
    type: "PRODUCT_TYPE_EXTENDED",
    before: { allOf: [S, { maxLength: 5 }] },
    after: { allOf: [S, { maxLength: 5 }, { minLength: 1 }] },
    compatible: false,
  },
  {
    type: "PRODUCT_TYPE_NARROWED",
    before: { allOf: [S, { maxLength: 5 }, { minLength: 1 }] },
    after: { allOf: [S, { maxLength: 5 }] },
    compatible: true,
  },
  { type: "PRODUCT_TYPE_NARROWED", before: str({ enum: ["a"] }), after: S, compatible: true },
  {
    type: "SUM_TYPE_EXTENDED",
    before: { anyOf: [S, N] },
    after: { anyOf: [S, N, { type: "boolean" }] },
    compatible: true,
  },
  { type: "SUM_TYPE_EXTENDED", before: S, after: { type: ["string", "null"] }, compatible: true },
  {
    type: "SUM_TYPE_NARROWED",
    before: { anyOf: [S, N, { type: "boolean" }] },
    after: { anyOf: [S, N] },
    compatible: false,
  },
  {
    type: "COMBINED_TYPE_SUBSCHEMAS_CHANGED",
    before: { anyOf: [S, N] },
    after: { anyOf: [S, { type: "boolean" }] },
    compatible: false,
  },
  { type: "NOT_TYPE_EXTENDED", before: { not: S }, after: { not: { anyOf: [S, N] } }, compatible: false },
  { type: "NOT_TYPE_NARROWED", before: { not: { anyOf: [S, N] } }, after: { not: S }, compatible: true },
];

/** Every type Confluent's JSON Schema diff names, less the three documented above. */
export const CONFLUENT_JSON_SCHEMA_DIFFERENCE_TYPES = [
  ...["ID", "DESCRIPTION", "TITLE", "DEFAULT"].map((k) => `${k}_CHANGED`),
  "SCHEMA_ADDED",
  "SCHEMA_REMOVED",
  "TYPE_EXTENDED",
  "TYPE_NARROWED",
  "TYPE_CHANGED",
  ...[
    "MAX_LENGTH",
    "MIN_LENGTH",
    "MAXIMUM",
    "MINIMUM",
    "EXCLUSIVE_MAXIMUM",
    "EXCLUSIVE_MINIMUM",
    "MAX_PROPERTIES",
    "MIN_PROPERTIES",
    "MAX_ITEMS",
    "MIN_ITEMS",
    "MAX_CONTAINS",
    "MIN_CONTAINS",
  ].flatMap((k) => [`${k}_ADDED`, `${k}_REMOVED`, `${k}_INCREASED`, `${k}_DECREASED`]),
  "PATTERN_ADDED",
  "PATTERN_REMOVED",
  "PATTERN_CHANGED",
  ...["ADDED", "REMOVED", "EXPANDED", "REDUCED", "CHANGED"].map((k) => `MULTIPLE_OF_${k}`),
  "REQUIRED_ATTRIBUTE_ADDED",
  "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
  "REQUIRED_ATTRIBUTE_REMOVED",
  ...["ADDITIONAL_PROPERTIES", "UNEVALUATED_PROPERTIES", "ADDITIONAL_ITEMS", "UNEVALUATED_ITEMS"].flatMap(
    (k) => [`${k}_ADDED`, `${k}_REMOVED`, `${k}_EXTENDED`, `${k}_NARROWED`],
  ),
  ...["ADDED", "REMOVED", "EXTENDED", "NARROWED", "CHANGED"].map((k) => `DEPENDENCY_ARRAY_${k}`),
  "DEPENDENCY_SCHEMA_ADDED",
  "DEPENDENCY_SCHEMA_REMOVED",
  "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
  "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL",
  "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
  "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  ...["PROPERTY", "ITEM"].flatMap((k) => [
    `${k}_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
    `${k}_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
    `${k}_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
    `${k}_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`,
  ]),
  "UNIQUE_ITEMS_ADDED",
  "UNIQUE_ITEMS_REMOVED",
  "ITEM_ADDED_TO_OPEN_CONTENT_MODEL",
  "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
  "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "ENUM_ARRAY_EXTENDED",
  "ENUM_ARRAY_NARROWED",
  "ENUM_ARRAY_CHANGED",
  "COMBINED_TYPE_EXTENDED",
  "COMBINED_TYPE_CHANGED",
  "PRODUCT_TYPE_EXTENDED",
  "PRODUCT_TYPE_NARROWED",
  "SUM_TYPE_EXTENDED",
  "SUM_TYPE_NARROWED",
  "COMBINED_TYPE_SUBSCHEMAS_CHANGED",
  "NOT_TYPE_EXTENDED",
  "NOT_TYPE_NARROWED",
];
