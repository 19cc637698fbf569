import { listApiKeys } from "../../services/api-key.service";
import { protectedProcedure } from "../../trpc/access";
import { listApiKeysInput, listApiKeysOutput } from "./list-api-keys.schema";

export const listApiKeysProcedure = protectedProcedure("keys:read")
  .meta({
    openapi: { method: "GET", path: "/api-keys", tags: ["api-keys"], summary: "List the tenant's API keys" },
  })
  .input(listApiKeysInput)
  .output(listApiKeysOutput)
  .query(({ ctx, input }) => listApiKeys(ctx.deps, ctx.identity, input));
