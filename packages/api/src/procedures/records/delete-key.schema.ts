import { z } from "zod";
import { topicNameSchema } from "../topics/topic.schema";

export const deleteKeyInput = z
  .object({
    topic: topicNameSchema,
    key: z.string().min(1).max(4096),
    keyType: z
      .enum(["string", "base64"])
      .default("string")
      .meta({ description: "How `key` encodes the key bytes" }),
  })
  .refine((input) => input.keyType !== "base64" || z.base64().safeParse(input.key).success, {
    message: "key is not valid base64",
    path: ["key"],
  });

export const deleteKeyOutput = z.object({
  partition: z.number().int(),
  offset: z.number().int().meta({ description: "Offset of the tombstone" }),
});
