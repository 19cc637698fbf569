import { deleteTopic } from "../../services/topic.service";
import { protectedProcedure } from "../../trpc/access";
import { deleteTopicInput, deleteTopicOutput } from "./delete-topic.schema";

export const deleteTopicProcedure = protectedProcedure("topics:write")
  .meta({
    openapi: {
      method: "DELETE",
      path: "/topics/{topic}",
      tags: ["topics"],
      summary: "Delete a topic; its workers remove the partitions' files",
    },
  })
  .input(deleteTopicInput)
  .output(deleteTopicOutput)
  .mutation(({ ctx, input }) => deleteTopic(ctx.deps, ctx.identity, input.topic));
