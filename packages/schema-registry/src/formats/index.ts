import type { CompatibilityLevel, SchemaType } from "../compatibility-level";
import { levelChecks } from "../compatibility-level";
import { avroFormat } from "./avro-format";
import { jsonSchemaFormat } from "./json-schema-format";
import { protobufFormat } from "./protobuf-format";
import {
  flattenReferences,
  type Incompatibility,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaFormat,
} from "./schema-format";

export type { Incompatibility, ParsedSchema, ResolvedReference, SchemaFormat } from "./schema-format";

export const FORMATS: Record<SchemaType, SchemaFormat> = {
  AVRO: avroFormat as SchemaFormat,
  PROTOBUF: protobufFormat as SchemaFormat,
  JSON: jsonSchemaFormat as SchemaFormat,
};

export function parseSchema(
  schemaType: SchemaType,
  schema: string,
  references: readonly ResolvedReference[],
): ParsedSchema {
  // Flattened once here: every format parses each referenced schema once, its own references first.
  return FORMATS[schemaType].parse(schema, flattenReferences(references));
}

/**
 * What keeps `candidate` from joining a subject whose live versions are `previous` (oldest first)
 * at `level`: checked against the latest only, or every one for a transitive level. A schema of
 * another type than the version it is checked against is incompatible with it.
 */
export function compatibilityIssues(
  level: CompatibilityLevel,
  candidate: ParsedSchema,
  previous: readonly ParsedSchema[],
): Incompatibility[] {
  const checks = levelChecks(level);
  if (!checks.backward && !checks.forward) return [];
  const against = checks.transitive ? previous : previous.slice(-1);
  const issues: Incompatibility[] = [];
  for (const old of [...against].reverse()) {
    if (old.schemaType !== candidate.schemaType) {
      issues.push({
        type: "TYPE_MISMATCH",
        location: "/",
        description: `schema type changed from ${old.schemaType} to ${candidate.schemaType}`,
      });
      continue;
    }
    const format = FORMATS[candidate.schemaType];
    if (checks.backward) issues.push(...format.readIssues(candidate, old));
    if (checks.forward) issues.push(...format.readIssues(old, candidate));
  }
  return issues;
}
