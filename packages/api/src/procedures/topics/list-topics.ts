import { listTopics } from "../../services/topic.service";
import { protectedProcedure } from "../../trpc/access";
import { listTopicsInput, listTopicsOutput } from "./list-topics.schema";

export const listTopicsProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: { method: "GET", path: "/topics", tags: ["topics"], summary: "List the tenant's topics" },
  })
  .input(listTopicsInput)
  .output(listTopicsOutput)
  .query(({ ctx, input }) => listTopics(ctx.deps, ctx.identity, input));
