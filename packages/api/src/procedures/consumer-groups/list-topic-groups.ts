import { listTopicGroups } from "../../services/group-position.service";
import { protectedProcedure } from "../../trpc/access";
import { listTopicGroupsInput, listTopicGroupsOutput } from "./group-position.schema";

export const listTopicGroupsProcedure = protectedProcedure("groups:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/consumer-groups",
      tags: ["consumer-groups"],
      summary: "The consumer groups with a position on a topic, with their lag",
    },
  })
  .input(listTopicGroupsInput)
  .output(listTopicGroupsOutput)
  .query(({ ctx, input }) => listTopicGroups(ctx.deps, ctx.identity, input.topic));
