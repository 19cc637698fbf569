import { listOffsetsInput, listOffsetsOutput } from "../../services/list-offsets.schema";
import { listPartitionOffsets } from "../../services/partition-offsets.service";
import { protectedProcedure } from "../../trpc/access";

// Kafka's ListOffsets: offsets are log metadata (no record bytes), so topics:read is enough.
export const listOffsetsProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/partitions/{partition}/offsets",
      tags: ["records"],
      summary: "A partition's earliest and latest offsets, and the first offset at or after a timestamp",
    },
  })
  .input(listOffsetsInput)
  .output(listOffsetsOutput)
  .query(({ ctx, input }) => listPartitionOffsets(ctx.deps, ctx.identity, input));
