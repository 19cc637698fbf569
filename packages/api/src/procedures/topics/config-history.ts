import { listConfigHistory } from "../../services/topic-config-history.service";
import { protectedProcedure } from "../../trpc/access";
import { configHistoryInput, configHistoryOutput } from "./config-history.schema";

export const configHistoryProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/config-history",
      tags: ["topics"],
      summary: "Who changed which config when, newest first (from the audit trail)",
    },
  })
  .input(configHistoryInput)
  .output(configHistoryOutput)
  .query(({ ctx, input }) => listConfigHistory(ctx.deps, ctx.identity, input));
