import { describeGroup } from "../../services/consumer-group.service";
import { protectedProcedure } from "../../trpc/access";
import { getGroupInput, getGroupOutput } from "./get-group.schema";

export const getGroupProcedure = protectedProcedure("groups:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/consumer-groups/{group}",
      tags: ["consumer-groups"],
      summary: "A consumer group's committed offsets and lag",
    },
  })
  .input(getGroupInput)
  .output(getGroupOutput)
  .query(({ ctx, input }) => describeGroup(ctx.deps, ctx.identity, input.group));
