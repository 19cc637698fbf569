import { z } from "zod";
import { keyRuleSchema } from "../../auth/resource-rules";
import { SCOPES } from "../../auth/scopes";

export const scopeSchema = z.enum(SCOPES);

export const apiKeySummarySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string().nullable(),
  scopes: z.array(scopeSchema),
  rules: z.array(keyRuleSchema),
  createdBy: z
    .object({
      userId: z.string(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      role: z
        .string()
        .nullable()
        .meta({ description: "The creator's role now; null once they left the tenant" }),
    })
    .nullable()
    .meta({ description: "Who made the key: it acts with at most their current role" }),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revoked: z.boolean(),
});
