import { previewErasure } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { preflightInput, preflightOutput } from "./erasure.schema";

export const previewErasureProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "POST",
      path: "/erasure-preflight",
      tags: ["erasure"],
      summary: "Worst-case purge time per topic of a would-be request against its deadline",
    },
  })
  .input(preflightInput)
  .output(preflightOutput)
  .mutation(({ ctx, input }) => previewErasure(ctx.deps, ctx.identity, input));
