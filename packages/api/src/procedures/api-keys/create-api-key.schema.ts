import { z } from "zod";
import { keyRuleSchema, keyRulesSchema } from "../../auth/resource-rules";
import { storedText } from "../../services/stored-text.schema";
import { scopeSchema } from "./api-key.schema";

export const createApiKeyInput = z.object({
  name: storedText(64).trim().min(1),
  scopes: z.array(scopeSchema).min(1).optional().meta({
    description:
      "Defaults to read-only: topics:read, records:read, groups:read (enough to consume, also in a Kafka group)",
  }),
  rules: keyRulesSchema.optional().meta({
    description:
      "Limits the key to topics and groups by literal name or prefix; a type with no rule is not limited. Defaults to none (or, for a key made by a rule-limited key, that key's rules)",
  }),
  expiresInDays: z.number().int().min(1).max(365).optional(),
});

export const createApiKeyOutput = z.object({
  id: z.string(),
  key: z.string().meta({ description: "The secret; shown only in this response" }),
  prefix: z.string(),
  name: z.string(),
  scopes: z.array(scopeSchema),
  rules: z.array(keyRuleSchema),
  expiresAt: z.string().nullable(),
});
