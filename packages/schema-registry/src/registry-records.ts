import { z } from "zod";
import { COMPATIBILITY_LEVELS, MODES, SCHEMA_TYPES } from "./compatibility-level";

/**
 * The registry's records in its compacted topic, in the shape of Confluent's `_schemas` topic: a
 * JSON key per thing (one schema version, one subject's or the global config or mode, the id
 * counter) whose latest value is its state; a tombstone removes it. Keys are always written by
 * `encodeRegistryKey`, one spelling per key, so compaction keeps exactly the latest value.
 */
export const schemaReferenceSchema = z.object({
  name: z.string().min(1),
  subject: z.string().min(1),
  version: z.number().int(),
});
export type SchemaReference = z.infer<typeof schemaReferenceSchema>;

export const registryKeySchema = z.discriminatedUnion("keytype", [
  z.object({
    keytype: z.literal("SCHEMA"),
    subject: z.string(),
    version: z.number().int(),
    magic: z.number(),
  }),
  z.object({ keytype: z.literal("CONFIG"), subject: z.string().nullable(), magic: z.number() }),
  z.object({ keytype: z.literal("MODE"), subject: z.string().nullable(), magic: z.number() }),
  z.object({ keytype: z.literal("ID_COUNTER"), magic: z.number() }),
]);
export type RegistryKey = z.infer<typeof registryKeySchema>;

export const schemaValueSchema = z.object({
  subject: z.string(),
  version: z.number().int(),
  id: z.number().int(),
  schemaType: z.enum(SCHEMA_TYPES),
  schema: z.string(),
  references: z.array(schemaReferenceSchema),
  deleted: z.boolean(),
});
export type SchemaValue = z.infer<typeof schemaValueSchema>;

export const configValueSchema = z.object({ compatibilityLevel: z.enum(COMPATIBILITY_LEVELS) });
export const modeValueSchema = z.object({ mode: z.enum(MODES) });
export const idCounterValueSchema = z.object({ next: z.number().int().positive() });

export type RegistryValue =
  | SchemaValue
  | z.infer<typeof configValueSchema>
  | z.infer<typeof modeValueSchema>
  | z.infer<typeof idCounterValueSchema>;

/** One record to append: a key and its new value (null: a tombstone). */
export interface RegistryWrite {
  key: RegistryKey;
  value: RegistryValue | null;
}

export const schemaKey = (subject: string, version: number): RegistryKey => ({
  keytype: "SCHEMA",
  subject,
  version,
  magic: 1,
});
export const configKey = (subject: string | null): RegistryKey => ({ keytype: "CONFIG", subject, magic: 0 });
export const modeKey = (subject: string | null): RegistryKey => ({ keytype: "MODE", subject, magic: 0 });
export const ID_COUNTER_KEY: RegistryKey = { keytype: "ID_COUNTER", magic: 0 };

/** Field order fixed per key type, so equal keys are equal bytes. */
export function encodeRegistryKey(key: RegistryKey): Buffer {
  switch (key.keytype) {
    case "SCHEMA":
      return Buffer.from(
        JSON.stringify({
          keytype: key.keytype,
          subject: key.subject,
          version: key.version,
          magic: key.magic,
        }),
      );
    case "CONFIG":
    case "MODE":
      return Buffer.from(JSON.stringify({ keytype: key.keytype, subject: key.subject, magic: key.magic }));
    case "ID_COUNTER":
      return Buffer.from(JSON.stringify({ keytype: key.keytype, magic: key.magic }));
  }
}

export function encodeRegistryValue(value: RegistryValue | null): Buffer | null {
  return value === null ? null : Buffer.from(JSON.stringify(value));
}

/** A record of the topic as the state applies it; null for bytes that are not a registry record. */
export function decodeRegistryRecord(
  key: Uint8Array | null,
  value: Uint8Array | null,
): { key: RegistryKey; value: unknown } | null {
  if (key === null) return null;
  try {
    const parsedKey = registryKeySchema.safeParse(JSON.parse(Buffer.from(key).toString("utf8")));
    if (!parsedKey.success) return null;
    return {
      key: parsedKey.data,
      value: value === null ? null : JSON.parse(Buffer.from(value).toString("utf8")),
    };
  } catch {
    return null;
  }
}
