import { z } from "zod";
import { verifyTenantAudit } from "../../services/audit-verify.service";
import { protectedProcedure } from "../../trpc/access";
import { auditVerifyOutput } from "../erasure/erasure.schema";

export const verifyAuditProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/audit/verify",
      tags: ["audit"],
      summary: "Re-walk the tenant's audit hash chain; names the first broken link",
    },
  })
  .input(z.object({}))
  .output(auditVerifyOutput)
  .query(({ ctx }) => verifyTenantAudit(ctx.deps.prisma, ctx.identity));
