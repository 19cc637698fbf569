import { z } from "zod";
import { ROLES } from "../../auth/scopes";
import { scopeSchema } from "../api-keys/api-key.schema";

export const currentTenantInput = z.object({}).optional();

export const currentTenantOutput = z.object({
  tenantId: z.string(),
  name: z.string(),
  slug: z.string(),
  actor: z.object({ type: z.enum(["user", "apiKey"]), id: z.string() }),
  role: z.enum(ROLES).nullable(),
  scopes: z.array(scopeSchema),
});
