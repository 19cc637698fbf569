import { extendErasureDeadline } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { erasureDetailSchema, extendErasureInput } from "./erasure.schema";

export const extendErasureDeadlineProcedure = protectedProcedure("erasure:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/erasure-requests/{id}/extensions",
      tags: ["erasure"],
      summary: "Move a request's deadline later, recording the reason",
    },
  })
  .input(extendErasureInput)
  .output(erasureDetailSchema)
  .mutation(({ ctx, input }) => extendErasureDeadline(ctx.deps, ctx.identity, input));
