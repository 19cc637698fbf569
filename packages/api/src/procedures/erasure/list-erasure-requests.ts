import { listErasureRequests } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { listErasureInput, listErasureOutput } from "./erasure.schema";

export const listErasureRequestsProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/erasure-requests",
      tags: ["erasure"],
      summary: "Erasure requests by deadline, with counts by status",
    },
  })
  .input(listErasureInput)
  .output(listErasureOutput)
  .query(({ ctx, input }) => listErasureRequests(ctx.deps, ctx.identity, input));
