/**
 * Confluent's error bodies, `{ error_code, message }`: the HTTP status is the code's first three
 * digits (40401 → 404, 42201 → 422), except the bare 409 and 5xx codes. Every refusal the registry
 * makes is one of these, so existing clients branch on the codes they already know.
 */
export const REGISTRY_ERROR_CODES = {
  UNAUTHORIZED: 40101,
  FORBIDDEN: 40301,
  SUBJECT_NOT_FOUND: 40401,
  VERSION_NOT_FOUND: 40402,
  SCHEMA_NOT_FOUND: 40403,
  SUBJECT_SOFT_DELETED: 40404,
  SUBJECT_NOT_SOFT_DELETED: 40405,
  VERSION_SOFT_DELETED: 40406,
  VERSION_NOT_SOFT_DELETED: 40407,
  SUBJECT_COMPATIBILITY_NOT_CONFIGURED: 40408,
  SUBJECT_MODE_NOT_CONFIGURED: 40409,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INCOMPATIBLE_SCHEMA: 409,
  INVALID_SCHEMA: 42201,
  INVALID_VERSION: 42202,
  INVALID_COMPATIBILITY_LEVEL: 42203,
  INVALID_MODE: 42204,
  OPERATION_NOT_PERMITTED: 42205,
  REFERENCE_EXISTS: 42206,
  INVALID_REQUEST: 42212,
  BAD_REQUEST: 400,
  TOO_MANY_REQUESTS: 42901,
  STORE_ERROR: 50001,
  STORE_TIMEOUT: 50002,
} as const;

export type RegistryErrorName = keyof typeof REGISTRY_ERROR_CODES;

export interface RegistryErrorBody {
  error_code: number;
  message: string;
}

export class RegistryError extends Error {
  readonly errorCode: number;
  /** Seconds a client should wait before retrying (429/503), when known. */
  readonly retryAfterSeconds: number | undefined;

  constructor(name: RegistryErrorName, message: string, options: { retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = "RegistryError";
    this.errorCode = REGISTRY_ERROR_CODES[name];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return httpStatusOf(this.errorCode);
  }

  get body(): RegistryErrorBody {
    return { error_code: this.errorCode, message: this.message };
  }
}

export function httpStatusOf(errorCode: number): number {
  return errorCode < 1000 ? errorCode : Math.floor(errorCode / 100);
}

export const subjectNotFound = (subject: string) =>
  new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
export const versionNotFound = (subject: string, version: number | string) =>
  new RegistryError("VERSION_NOT_FOUND", `Version ${version} not found for subject '${subject}'.`);
/** A subject's own compatibility level or mode, read or removed where the subject has none. */
export const settingNotConfigured = (setting: "compatibility" | "mode", subject: string) =>
  new RegistryError(
    setting === "compatibility" ? "SUBJECT_COMPATIBILITY_NOT_CONFIGURED" : "SUBJECT_MODE_NOT_CONFIGURED",
    `Subject '${subject}' does not have subject-level ${setting} configured`,
  );
export const schemaNotFound = (detail = "Schema not found") => new RegistryError("SCHEMA_NOT_FOUND", detail);
export const invalidSchema = (detail: string) =>
  new RegistryError("INVALID_SCHEMA", `Invalid schema: ${detail}`);
