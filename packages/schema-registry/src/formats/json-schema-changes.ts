/**
 * Confluent's JSON Schema difference types that a reader of the update still reads the original's
 * data through (its STRICT policy, the registry's default): every other difference the diff reports
 * is an incompatibility. The diff reports compatible differences too, so a change is judged by one
 * set, as Confluent judges it.
 */
export const JSON_SCHEMA_COMPATIBLE_CHANGES: ReadonlySet<string> = new Set([
  "ID_CHANGED",
  "DESCRIPTION_CHANGED",
  "TITLE_CHANGED",
  "DEFAULT_CHANGED",
  "SCHEMA_REMOVED",
  "TYPE_EXTENDED",
  "MAX_LENGTH_INCREASED",
  "MAX_LENGTH_REMOVED",
  "MIN_LENGTH_DECREASED",
  "MIN_LENGTH_REMOVED",
  "PATTERN_REMOVED",
  "MAXIMUM_INCREASED",
  "MAXIMUM_REMOVED",
  "MINIMUM_DECREASED",
  "MINIMUM_REMOVED",
  "EXCLUSIVE_MAXIMUM_INCREASED",
  "EXCLUSIVE_MAXIMUM_REMOVED",
  "EXCLUSIVE_MINIMUM_DECREASED",
  "EXCLUSIVE_MINIMUM_REMOVED",
  "MULTIPLE_OF_REDUCED",
  "MULTIPLE_OF_REMOVED",
  "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
  "REQUIRED_ATTRIBUTE_REMOVED",
  "DEPENDENCY_ARRAY_NARROWED",
  "DEPENDENCY_ARRAY_REMOVED",
  "DEPENDENCY_SCHEMA_REMOVED",
  "MAX_PROPERTIES_INCREASED",
  "MAX_PROPERTIES_REMOVED",
  "MIN_PROPERTIES_DECREASED",
  "MIN_PROPERTIES_REMOVED",
  "ADDITIONAL_PROPERTIES_ADDED",
  "ADDITIONAL_PROPERTIES_EXTENDED",
  "UNEVALUATED_PROPERTIES_ADDED",
  "UNEVALUATED_PROPERTIES_EXTENDED",
  "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "MAX_ITEMS_INCREASED",
  "MAX_ITEMS_REMOVED",
  "MIN_ITEMS_DECREASED",
  "MIN_ITEMS_REMOVED",
  "MAX_CONTAINS_INCREASED",
  "MAX_CONTAINS_REMOVED",
  "MIN_CONTAINS_DECREASED",
  "MIN_CONTAINS_REMOVED",
  "UNIQUE_ITEMS_REMOVED",
  "ADDITIONAL_ITEMS_ADDED",
  "ADDITIONAL_ITEMS_EXTENDED",
  "UNEVALUATED_ITEMS_ADDED",
  "UNEVALUATED_ITEMS_EXTENDED",
  "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
  "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "ENUM_ARRAY_EXTENDED",
  "COMBINED_TYPE_EXTENDED",
  "PRODUCT_TYPE_NARROWED",
  "SUM_TYPE_EXTENDED",
  "NOT_TYPE_NARROWED",
]);

const ADDED_KEYWORD =
  /^(MAXIMUM|MINIMUM|EXCLUSIVE_MAXIMUM|EXCLUSIVE_MINIMUM|MULTIPLE_OF|MAX_LENGTH|MIN_LENGTH|PATTERN|MAX_PROPERTIES|MIN_PROPERTIES|MAX_ITEMS|MIN_ITEMS|MAX_CONTAINS|MIN_CONTAINS|UNIQUE_ITEMS|DEPENDENCY_ARRAY|DEPENDENCY_SCHEMA)_ADDED$/;

/**
 * What an incompatible difference means for the data. The reader is the schema reading (the update),
 * the writer the one the data was written with: under BACKWARD the new and the old schema, under
 * FORWARD the other way round.
 */
export function describeJsonSchemaChange(type: string, location: string): string {
  if (ADDED_KEYWORD.test(type) || type === "REQUIRED_ATTRIBUTE_ADDED" || type === "SCHEMA_ADDED") {
    return `the keyword at "${location}" in the reader schema is not in the writer schema`;
  }
  if (/_(REMOVED)$/.test(type) && /^(ADDITIONAL|UNEVALUATED)_/.test(type)) {
    return `the reader schema no longer allows what "${location}" allowed in the writer schema`;
  }
  if (/^(MIN_[A-Z]+|MINIMUM|EXCLUSIVE_MINIMUM)_INCREASED$|^MULTIPLE_OF_EXPANDED$/.test(type)) {
    return `the value at "${location}" is higher in the reader schema than in the writer schema`;
  }
  if (/^(MAX_[A-Z]+|MAXIMUM|EXCLUSIVE_MAXIMUM)_DECREASED$/.test(type)) {
    return `the value at "${location}" is lower in the reader schema than in the writer schema`;
  }
  if (/_CHANGED$/.test(type) && /^(PATTERN|MULTIPLE_OF|DEPENDENCY_ARRAY)_/.test(type)) {
    return `the value at "${location}" differs between the writer and the reader schema`;
  }
  if (/_NARROWED$/.test(type) && type !== "TYPE_NARROWED") {
    return `the array or combined type at "${location}" accepts less in the reader schema than in the writer schema`;
  }
  if (/_EXTENDED$/.test(type)) {
    return `the array or combined type at "${location}" has more elements in the reader schema than in the writer schema`;
  }
  if (/TYPE_CHANGED$|^TYPE_NARROWED$|^ENUM_ARRAY_CHANGED$|^COMBINED_TYPE_SUBSCHEMAS_CHANGED$/.test(type)) {
    return `the type at "${location}" differs between the writer and the reader schema`;
  }
  if (/_ADDED_TO_OPEN_CONTENT_MODEL$/.test(type)) {
    return `the reader schema has an open content model and a property or item at "${location}" the writer schema lacks`;
  }
  if (type === "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL") {
    return `the reader schema has a closed or partially open content model and a required property at "${location}" without a default`;
  }
  if (/_REMOVED_FROM_CLOSED_CONTENT_MODEL$/.test(type)) {
    return `the reader schema has a closed content model and lacks the property or item at "${location}" of the writer schema`;
  }
  if (/_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL$/.test(type)) {
    return `the property or item at "${location}" of the writer schema is gone and the partially open content model of the reader schema does not accept it`;
  }
  if (/_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL$/.test(type)) {
    return `the property or item at "${location}" of the reader schema is not accepted by the partially open content model of the writer schema`;
  }
  return `${type.toLowerCase().replace(/_/g, " ")} at "${location}"`;
}
