import { groupLagHistory } from "../../services/group-lag-history";
import { protectedProcedure } from "../../trpc/access";
import { groupLagHistoryInput, groupLagHistoryOutput } from "./group-lag-history.schema";

export const groupLagHistoryProcedure = protectedProcedure("groups:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/consumer-group-lag-history",
      tags: ["consumer-groups"],
      summary: "Every consumer group's lag per minute over the last minutes, from the stored samples",
    },
  })
  .input(groupLagHistoryInput)
  .output(groupLagHistoryOutput)
  .query(({ ctx, input }) => groupLagHistory(ctx.deps, ctx.identity, input));
