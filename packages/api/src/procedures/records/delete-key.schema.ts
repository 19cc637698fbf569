import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";
import { base64KeyRefinement, keyParamSchema, keyTypeSchema } from "../keys/key-lookup.schema";

export const deleteKeyInput = base64KeyRefinement(
  z.object({ topic: topicNameSchema, key: keyParamSchema, keyType: keyTypeSchema }),
);

export const deleteKeyOutput = z.object({
  partition: z.number().int(),
  offset: z.number().int().meta({ description: "Offset of the tombstone" }),
});
