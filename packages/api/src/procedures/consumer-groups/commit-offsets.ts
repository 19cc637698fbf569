import { commitOffsets } from "../../services/consumer-group.service";
import { protectedProcedure } from "../../trpc/access";
import { commitOffsetsInput, commitOffsetsOutput } from "./commit-offsets.schema";

export const commitOffsetsProcedure = protectedProcedure("groups:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/consumer-groups/{group}/offsets",
      tags: ["consumer-groups"],
      summary: "Commit a consumer group's offsets",
    },
  })
  .input(commitOffsetsInput)
  .output(commitOffsetsOutput)
  .mutation(({ ctx, input }) => commitOffsets(ctx.deps, ctx.identity, input));
