import { groupLag } from "../../services/group-position.service";
import { protectedProcedure } from "../../trpc/access";
import { groupLagInput, groupLagOutput } from "./group-position.schema";

export const groupLagProcedure = protectedProcedure("groups:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/consumer-groups/{group}/lag",
      tags: ["consumer-groups"],
      summary: "Lag per partition in records and in time (age of the next unread record)",
    },
  })
  .input(groupLagInput)
  .output(groupLagOutput)
  .query(({ ctx, input }) => groupLag(ctx.deps, ctx.identity, input.group));
