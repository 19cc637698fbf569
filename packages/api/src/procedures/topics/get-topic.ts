import { describeTopic } from "../../services/topic-describe.service";
import { protectedProcedure } from "../../trpc/access";
import { getTopicInput, getTopicOutput } from "./get-topic.schema";

export const getTopicProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}",
      tags: ["topics"],
      summary: "Describe a topic: configs and partitions",
    },
  })
  .input(getTopicInput)
  .output(getTopicOutput)
  .query(({ ctx, input }) => describeTopic(ctx.deps, ctx.identity, input.topic));
