import { createErasureRequest } from "../../services/erasure.service";
import { protectedProcedure } from "../../trpc/access";
import { createErasureInput, erasureDetailSchema } from "./erasure.schema";

export const createErasureRequestProcedure = protectedProcedure("erasure:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/erasure-requests",
      tags: ["erasure"],
      summary: "Receive an erasure request and write its tombstones",
    },
    successStatus: 201,
  })
  .input(createErasureInput)
  .output(erasureDetailSchema)
  .mutation(({ ctx, input }) => createErasureRequest(ctx.deps, ctx.identity, input));
