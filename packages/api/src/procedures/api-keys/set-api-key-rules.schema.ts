import { z } from "zod";
import { keyRuleSchema, keyRulesSchema } from "../../auth/resource-rules";

export const setApiKeyRulesInput = z.object({
  id: z.string().min(1).max(128),
  rules: keyRulesSchema.meta({ description: "The key's rules from now on; an empty list lifts every limit" }),
});

export const setApiKeyRulesOutput = z.object({ id: z.string(), rules: z.array(keyRuleSchema) });
