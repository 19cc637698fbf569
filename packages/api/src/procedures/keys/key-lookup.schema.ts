import { z } from "zod";
import { ENVELOPE_FORMATS, envelopeSchema } from "../../records/envelope";
import { headerSchema } from "../records/record.schema";
import { topicNameSchema } from "../topics/topic.schema";

export const keyLookupInput = z
  .object({
    topic: topicNameSchema,
    key: z.string().min(1).max(4096),
    keyType: z
      .enum(["string", "base64"])
      .default("string")
      .meta({ description: "How `key` encodes the key bytes" }),
    valueFormat: z.enum(ENVELOPE_FORMATS).default("auto"),
  })
  .refine((input) => input.keyType !== "base64" || z.base64().safeParse(input.key).success, {
    message: "key is not valid base64",
    path: ["key"],
  });

export const getKeyOutput = z.object({
  partition: z.number().int(),
  offset: z.number().int(),
  timestamp: z.number().int(),
  value: envelopeSchema.nullable(),
  headers: z.array(headerSchema),
});

export const keyVersionsOutput = z.object({
  partition: z.number().int(),
  logStartOffset: z.number().int(),
  logEndOffset: z.number().int(),
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
