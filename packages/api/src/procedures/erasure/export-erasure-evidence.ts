import { exportErasureEvidence } from "../../services/erasure-export";
import { protectedProcedure } from "../../trpc/access";
import { erasureIdInput, exportInput, exportOutput } from "./erasure.schema";

export const exportErasureEvidenceProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/erasure-requests/{id}/evidence",
      tags: ["erasure"],
      summary: "A request's evidence as a CSV or JSON document",
    },
  })
  .input(erasureIdInput.merge(exportInput))
  .output(exportOutput)
  .query(({ ctx, input }) => exportErasureEvidence(ctx.deps, ctx.identity, input));
