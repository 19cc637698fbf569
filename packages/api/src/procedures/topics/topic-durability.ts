import { topicDurabilityInput, topicDurabilityOutput } from "../../services/topic-durability.schema";
import { topicDurability } from "../../services/topic-durability.service";
import { protectedProcedure } from "../../trpc/access";

export const topicDurabilityProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/durability",
      tags: ["topics"],
      summary:
        "The topic's durability mode and recovery point: per partition the log end, the end in object storage, the offsets not yet uploaded and the objects",
    },
  })
  .input(topicDurabilityInput)
  .output(topicDurabilityOutput)
  .query(({ ctx, input }) => topicDurability(ctx.deps, ctx.identity, input));
