import { createTopicInput, createTopicOutput } from "../../services/create-topic.schema";
import { createTopic } from "../../services/topic.service";
import { protectedProcedure } from "../../trpc/access";

export const createTopicProcedure = protectedProcedure("topics:write")
  .meta({
    openapi: { method: "POST", path: "/topics", tags: ["topics"], summary: "Create a topic (or dry-run it)" },
    successStatuses: [201, 200],
    successStatus: (data) => ((data as { validateOnly: boolean }).validateOnly ? 200 : 201),
  })
  .input(createTopicInput)
  .output(createTopicOutput)
  .mutation(({ ctx, input }) => createTopic(ctx.deps, ctx.identity, input));
