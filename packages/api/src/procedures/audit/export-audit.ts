import { exportAuditTrail } from "../../services/erasure-export";
import { protectedProcedure } from "../../trpc/access";
import { exportInput, exportOutput } from "../erasure/erasure.schema";

export const exportAuditProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/audit/export",
      tags: ["audit"],
      summary: "The tenant's whole audit trail (with hashes) as CSV or JSON",
    },
  })
  .input(exportInput)
  .output(exportOutput)
  .query(({ ctx, input }) => exportAuditTrail(ctx.deps.prisma, ctx.identity, input.format));
