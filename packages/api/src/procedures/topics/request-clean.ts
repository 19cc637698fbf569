import { requestCleanInput, requestCleanOutput } from "../../services/request-clean.schema";
import { requestClean } from "../../services/request-clean.service";
import { protectedProcedure } from "../../trpc/access";

// Admin only: a forced pass rewrites every segment up to the dirty end, which costs the tenant I/O.
export const requestCleanProcedure = protectedProcedure("admin")
  .meta({
    openapi: {
      method: "POST",
      path: "/topics/{topic}/partitions/{partition}/clean",
      tags: ["topics"],
      summary: "Ask for a cleaner pass now, whatever the dirty ratio; also retries an uncleanable partition",
    },
  })
  .input(requestCleanInput)
  .output(requestCleanOutput)
  .mutation(({ ctx, input }) => requestClean(ctx.deps, ctx.identity, input));
