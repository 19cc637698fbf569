import { partitionSegmentsInput, partitionSegmentsOutput } from "../../services/partition-segments.schema";
import { listPartitionSegments } from "../../services/partition-segments.service";
import { protectedProcedure } from "../../trpc/access";

// topics:read, not records:read: sizes and offsets are metadata, so compliance officers see the cleaner at work.
export const partitionSegmentsProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/partitions/{partition}/segments",
      tags: ["topics"],
      summary:
        "A partition's log segments (offsets, bytes, records, clean | dirty | active) and cleaner state",
    },
  })
  .input(partitionSegmentsInput)
  .output(partitionSegmentsOutput)
  .query(({ ctx, input }) => listPartitionSegments(ctx.deps, ctx.identity, input));
