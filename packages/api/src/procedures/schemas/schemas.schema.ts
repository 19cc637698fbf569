import { COMPATIBILITY_LEVELS, MAX_SUBJECT_LENGTH, SCHEMA_TYPES } from "@lastword/schema-registry";
import { z } from "zod";

// The console's schema procedures (tRPC only; programs use the registry's own HTTP API).
export const subjectNameSchema = z.string().min(1).max(MAX_SUBJECT_LENGTH);
export const subjectInput = z.object({ subject: subjectNameSchema });
export const schemaDraftInput = z.object({
  subject: subjectNameSchema,
  schemaType: z.enum(SCHEMA_TYPES).default("AVRO"),
  schema: z
    .string()
    .min(1)
    .max(900 * 1024),
});
export const setCompatibilityInput = z.object({
  subject: subjectNameSchema.nullable(),
  level: z.enum(COMPATIBILITY_LEVELS).nullable(),
});
export const deleteSchemaInput = z.object({
  subject: subjectNameSchema,
  version: z.number().int().min(1).optional(),
  permanent: z.boolean().default(false),
});
export const topicSubjectsInput = z.object({ topic: z.string().min(1).max(249) });
export const encodeValueInput = z.object({
  subject: subjectNameSchema,
  version: z.union([z.number().int().min(1), z.literal("latest")]).default("latest"),
  value: z.json(),
});
