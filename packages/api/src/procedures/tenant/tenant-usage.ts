import { tenantUsage } from "../../services/usage.service";
import { protectedProcedure } from "../../trpc/access";
import { tenantUsageInput, tenantUsageOutput } from "./tenant-usage.schema";

export const tenantUsageProcedure = protectedProcedure("topics:read")
  .meta({ openapi: { method: "GET", path: "/tenant/usage", tags: ["tenant"], summary: "Quotas and usage" } })
  .input(tenantUsageInput)
  .output(tenantUsageOutput)
  .query(({ ctx }) => tenantUsage(ctx.deps, ctx.identity.tenantId));
