import { getErasureRequest } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { erasureDetailSchema, erasureIdInput } from "./erasure.schema";

export const getErasureRequestProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/erasure-requests/{id}",
      tags: ["erasure"],
      summary: "One erasure request: tombstones, evidence, lagging consumer groups and its timeline",
    },
  })
  .input(erasureIdInput)
  .output(erasureDetailSchema)
  .query(({ ctx, input }) => getErasureRequest(ctx.deps, ctx.identity, input.id));
