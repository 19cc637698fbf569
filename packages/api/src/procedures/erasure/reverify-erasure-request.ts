import { reverifyErasureRequest } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { erasureIdInput, reverifyErasureOutput } from "./erasure.schema";

export const reverifyErasureRequestProcedure = protectedProcedure("erasure:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/erasure-requests/{id}/reverify",
      tags: ["erasure"],
      summary:
        "Look at a failed request again: purged if every partition is now proven, else passes requested",
    },
  })
  .input(erasureIdInput)
  .output(reverifyErasureOutput)
  .mutation(({ ctx, input }) => reverifyErasureRequest(ctx.deps, ctx.identity, input));
