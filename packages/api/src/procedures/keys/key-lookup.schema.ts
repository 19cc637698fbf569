import { z } from "zod";
import { ENVELOPE_FORMATS, envelopeSchema } from "../../records/envelope";
import { MAX_KEY_BYTES, MAX_KEY_TEXT_LENGTH } from "../../records/key-limit";
import { headerSchema, partitionLogRangeSchema } from "../../services/record.schema";
import { topicNameSchema } from "../../services/topic.schema";

/**
 * The `{key}` of the key routes. The REST layer percent-decodes path parameters once
 * (rest/procedure-routes.ts), so this is the key itself, whatever characters it holds.
 */
export const keyParamSchema = z
  .string()
  .min(1)
  .max(MAX_KEY_TEXT_LENGTH)
  .meta({
    description:
      `The key, percent-encoded as one path segment (\`user 1\` → \`user%201\`, \`a/b\` → \`a%2Fb\`, \`%\` → \`%25\`; ` +
      "UTF-8 for non-ASCII). A key that is not UTF-8 text: its standard base64 with `keyType=base64` " +
      `(itself percent-encoded: \`/\` → \`%2F\`, \`+\` → \`%2B\`, \`=\` → \`%3D\`). At most ${MAX_KEY_BYTES} bytes.`,
  });

export const keyTypeSchema = z
  .enum(["string", "base64"])
  .default("string")
  .meta({ description: "How `key` encodes the key bytes: UTF-8 text (default) or standard base64" });

/** Refuses `keyType=base64` with a key that is not base64 (at the key). */
export function base64KeyRefinement<S extends z.ZodType<{ key: string; keyType: "string" | "base64" }>>(
  schema: S,
): S {
  return schema.refine((input) => input.keyType !== "base64" || z.base64().safeParse(input.key).success, {
    message: "key is not valid base64",
    path: ["key"],
  });
}

export const keyLookupInput = base64KeyRefinement(
  z.object({
    topic: topicNameSchema,
    key: keyParamSchema,
    keyType: keyTypeSchema,
    valueFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
  }),
);

export const getKeyOutput = z.object({
  partition: z.number().int(),
  offset: z.number().int(),
  timestamp: z.number().int(),
  value: envelopeSchema.nullable(),
  headers: z.array(headerSchema),
});

export const keyVersionsOutput = partitionLogRangeSchema.extend({
  versions: z.array(
    z.object({
      offset: z.number().int(),
      timestamp: z.number().int(),
      value: envelopeSchema.nullable().meta({ description: "null: a tombstone" }),
      tombstone: z.boolean(),
      segment: z.object({
        baseOffset: z.number().int().meta({ description: "The segment file's base offset" }),
      }),
    }),
  ),
});
