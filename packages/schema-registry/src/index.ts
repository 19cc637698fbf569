export {
  COMPATIBILITY_LEVELS,
  type CompatibilityLevel,
  DEFAULT_COMPATIBILITY,
  DEFAULT_MODE,
  levelChecks,
  MODES,
  type Mode,
  parseCompatibilityLevel,
  parseMode,
  parseSchemaType,
  SCHEMA_TYPES,
  type SchemaType,
} from "./compatibility-level";
export {
  compatibilityIssues,
  FORMATS,
  type Incompatibility,
  type ParsedSchema,
  parseSchema,
  type ResolvedReference,
} from "./formats";
export { httpStatusOf, REGISTRY_ERROR_CODES, RegistryError, type RegistryErrorBody } from "./registry-error";
export type { RegistryLog, RegistryLogRecord } from "./registry-log";
export {
  decodeRegistryRecord,
  encodeRegistryKey,
  encodeRegistryValue,
  ID_COUNTER_KEY,
  type RegistryKey,
  type SchemaReference,
  type SchemaValue,
  schemaKey,
} from "./registry-records";
export {
  MAX_SUBJECT_LENGTH,
  matchRegistryRoute,
  REGISTRY_ROUTES,
  type RegistryAccess,
  type RegistryRequest,
  type RegistryResponse,
  type RegistryRoute,
  versionBody,
} from "./registry-routes";
export { RegistryState, type StoredSchema } from "./registry-state";
export { decodePayload, encodePayload } from "./schema-codec";
export {
  type CompatibilityResult,
  incompatibilityMessages,
  MAX_REFERENCE_DEPTH,
  type RegisterInput,
  type SchemaInput,
  SchemaRegistry,
} from "./schema-registry";
export { readConfluentFrame, writeConfluentFrame } from "./wire-format";
