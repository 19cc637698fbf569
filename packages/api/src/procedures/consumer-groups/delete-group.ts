import { deleteGroup } from "../../services/group-overview.service";
import { protectedProcedure } from "../../trpc/access";
import { deleteGroupInput, deleteGroupOutput } from "./group-position.schema";

export const deleteGroupProcedure = protectedProcedure("groups:write")
  .meta({
    openapi: {
      method: "DELETE",
      path: "/consumer-groups/{group}",
      tags: ["consumer-groups"],
      summary: "Delete a consumer group and its offsets (refused while a Kafka coordinator holds it)",
    },
  })
  .input(deleteGroupInput)
  .output(deleteGroupOutput)
  .mutation(({ ctx, input }) => deleteGroup(ctx.deps, ctx.identity, input.group));
