import { renameTenant } from "../../services/tenant.service";
import { protectedProcedure } from "../../trpc/access";
import { renameTenantInput, renameTenantOutput } from "./rename-tenant.schema";

export const renameTenantProcedure = protectedProcedure("admin")
  .meta({
    openapi: { method: "PATCH", path: "/tenant", tags: ["tenant"], summary: "Rename the caller's tenant" },
  })
  .input(renameTenantInput)
  .output(renameTenantOutput)
  .mutation(({ ctx, input }) => renameTenant(ctx.deps, ctx.identity, input));
