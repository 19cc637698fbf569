import { z } from "zod";
import { keyRuleSchema, keyRulesSchema } from "../../auth/resource-rules";
import { idSchema } from "../../services/stored-text.schema";

export const setApiKeyRulesInput = z.object({
  id: idSchema,
  rules: keyRulesSchema.meta({ description: "The key's rules from now on; an empty list lifts every limit" }),
});

export const setApiKeyRulesOutput = z.object({ id: z.string(), rules: z.array(keyRuleSchema) });
