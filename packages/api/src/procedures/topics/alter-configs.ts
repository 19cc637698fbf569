import { alterConfigsInput, alterConfigsOutput } from "../../services/alter-configs.schema";
import { alterTopicConfigs } from "../../services/topic-admin.service";
import { protectedProcedure } from "../../trpc/access";

export const alterConfigsProcedure = protectedProcedure("topics:write")
  .meta({
    openapi: {
      method: "PATCH",
      path: "/topics/{topic}/configs",
      tags: ["topics"],
      summary: "Set or reset topic configs (audited with a before/after diff)",
    },
  })
  .input(alterConfigsInput)
  .output(alterConfigsOutput)
  .mutation(({ ctx, input }) => alterTopicConfigs(ctx.deps, ctx.identity, input));
