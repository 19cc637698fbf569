import { listGroups } from "../../services/group-overview.service";
import { protectedProcedure } from "../../trpc/access";
import { listGroupsInput, listGroupsOutput } from "./group-position.schema";

export const listGroupsProcedure = protectedProcedure("groups:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/consumer-groups",
      tags: ["consumer-groups"],
      summary: "Every consumer group of the tenant (Kafka and REST), with lag per topic and partition",
    },
  })
  .input(listGroupsInput)
  .output(listGroupsOutput)
  .query(({ ctx, input }) => listGroups(ctx.deps, ctx.identity, input?.group));
