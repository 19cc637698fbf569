import { z } from "zod";
import { SCOPES } from "../../auth/scopes";

export const scopeSchema = z.enum(SCOPES);

export const apiKeySummarySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string().nullable(),
  scopes: z.array(scopeSchema),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revoked: z.boolean(),
});
