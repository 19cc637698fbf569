import { revokeApiKey } from "../../services/api-key.service";
import { protectedProcedure } from "../../trpc/access";
import { revokeApiKeyInput, revokeApiKeyOutput } from "./revoke-api-key.schema";

export const revokeApiKeyProcedure = protectedProcedure("keys:write")
  .meta({
    openapi: { method: "DELETE", path: "/api-keys/{id}", tags: ["api-keys"], summary: "Revoke an API key" },
  })
  .input(revokeApiKeyInput)
  .output(revokeApiKeyOutput)
  .mutation(({ ctx, input }) => revokeApiKey(ctx.deps, ctx.identity, input.id));
