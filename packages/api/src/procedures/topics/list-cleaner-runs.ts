import { listCleanerRuns } from "../../services/cleaner-run.service";
import { protectedProcedure } from "../../trpc/access";
import { listCleanerRunsInput, listCleanerRunsOutput } from "./list-cleaner-runs.schema";

export const listCleanerRunsProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/cleaner-runs",
      tags: ["topics"],
      summary: "Recent compaction passes of the topic's partitions",
    },
  })
  .input(listCleanerRunsInput)
  .output(listCleanerRunsOutput)
  .query(({ ctx, input }) => listCleanerRuns(ctx.deps, ctx.identity, input));
