import { createApiKeyFor } from "../../services/api-key.service";
import { protectedProcedure } from "../../trpc/access";
import { createApiKeyInput, createApiKeyOutput } from "./create-api-key.schema";

export const createApiKeyProcedure = protectedProcedure("keys:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/api-keys",
      tags: ["api-keys"],
      summary: "Create an API key (secret shown once)",
    },
    successStatus: 201,
  })
  .input(createApiKeyInput)
  .output(createApiKeyOutput)
  .mutation(({ ctx, input }) => createApiKeyFor(ctx.deps, ctx.identity, input));
