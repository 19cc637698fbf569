import { resetOffsets } from "../../services/group-position.service";
import { protectedProcedure } from "../../trpc/access";
import { resetOffsetsInput, resetOffsetsOutput } from "./group-position.schema";

export const resetOffsetsProcedure = protectedProcedure("groups:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/consumer-groups/{group}/reset",
      tags: ["consumer-groups"],
      summary: "Reset a group's offsets on a topic to earliest, latest or a timestamp",
    },
  })
  .input(resetOffsetsInput)
  .output(resetOffsetsOutput)
  .mutation(({ ctx, input }) => resetOffsets(ctx.deps, ctx.identity, input));
