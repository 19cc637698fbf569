import { addPartitions } from "../../services/topic-admin.service";
import { protectedProcedure } from "../../trpc/access";
import { addPartitionsInput, addPartitionsOutput } from "./add-partitions.schema";

export const addPartitionsProcedure = protectedProcedure("topics:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/topics/{topic}/partitions",
      tags: ["topics"],
      summary: "Raise the partition count (refused with 409 on compacted topics)",
    },
  })
  .input(addPartitionsInput)
  .output(addPartitionsOutput)
  .mutation(({ ctx, input }) => addPartitions(ctx.deps, ctx.identity, input));
