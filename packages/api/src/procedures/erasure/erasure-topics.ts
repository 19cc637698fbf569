import { z } from "zod";
import { erasureTopicsReport } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { erasureTopicsOutput } from "./erasure.schema";

export const erasureTopicsProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/erasure-topics",
      tags: ["erasure"],
      summary:
        "Every compacted topic: can its configs meet the tenant's deadline, who lags behind its tombstones",
    },
  })
  .input(z.object({}))
  .output(erasureTopicsOutput)
  .query(({ ctx }) => erasureTopicsReport(ctx.deps, ctx.identity));
