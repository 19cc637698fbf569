import { RegistryError } from "./registry-error";

/** Confluent's compatibility levels; BACKWARD is the default, as in Confluent's registry. */
export const COMPATIBILITY_LEVELS = [
  "BACKWARD",
  "BACKWARD_TRANSITIVE",
  "FORWARD",
  "FORWARD_TRANSITIVE",
  "FULL",
  "FULL_TRANSITIVE",
  "NONE",
] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];
export const DEFAULT_COMPATIBILITY: CompatibilityLevel = "BACKWARD";

export const MODES = ["READWRITE", "READONLY", "IMPORT"] as const;
export type Mode = (typeof MODES)[number];
export const DEFAULT_MODE: Mode = "READWRITE";

export const SCHEMA_TYPES = ["AVRO", "PROTOBUF", "JSON"] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export function parseCompatibilityLevel(value: unknown): CompatibilityLevel {
  const level = typeof value === "string" ? value.toUpperCase() : value;
  if (!(COMPATIBILITY_LEVELS as readonly unknown[]).includes(level)) {
    throw new RegistryError(
      "INVALID_COMPATIBILITY_LEVEL",
      `Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive`,
    );
  }
  return level as CompatibilityLevel;
}

export function parseMode(value: unknown): Mode {
  const mode = typeof value === "string" ? value.toUpperCase() : value;
  if (!(MODES as readonly unknown[]).includes(mode)) {
    throw new RegistryError("INVALID_MODE", `Invalid mode. Valid values are READWRITE, READONLY and IMPORT`);
  }
  return mode as Mode;
}

export function parseSchemaType(value: unknown): SchemaType {
  if (value === undefined || value === null) return "AVRO";
  const type = typeof value === "string" ? value.toUpperCase() : value;
  if (!(SCHEMA_TYPES as readonly unknown[]).includes(type)) {
    throw new RegistryError(
      "INVALID_SCHEMA",
      `Invalid schema type ${String(value)}; valid types are AVRO, PROTOBUF and JSON`,
    );
  }
  return type as SchemaType;
}

/**
 * Which checks a level asks for, and against which earlier versions: BACKWARD means the new schema
 * reads data written with the old one, FORWARD the reverse; a transitive level checks every
 * live earlier version, a plain one only the latest (Confluent's CompatibilityChecker).
 */
export function levelChecks(level: CompatibilityLevel): {
  backward: boolean;
  forward: boolean;
  transitive: boolean;
} {
  return {
    backward: level.startsWith("BACKWARD") || level.startsWith("FULL"),
    forward: level.startsWith("FORWARD") || level.startsWith("FULL"),
    transitive: level.endsWith("_TRANSITIVE"),
  };
}
