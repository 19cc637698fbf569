import { topicHistory } from "../../services/topic-history.service";
import { protectedProcedure } from "../../trpc/access";
import { topicHistoryInput, topicHistoryOutput } from "./topic-history.schema";

export const topicHistoryProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/history",
      tags: ["topics"],
      summary: "Per-minute size, live bytes, produce and fetch rates and consumer-group lag of the topic",
    },
  })
  .input(topicHistoryInput)
  .output(topicHistoryOutput)
  .query(({ ctx, input }) => topicHistory(ctx.deps, ctx.identity, input));
