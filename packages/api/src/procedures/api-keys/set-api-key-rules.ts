import { replaceApiKeyRules } from "../../services/key-rules.service";
import { protectedProcedure } from "../../trpc/access";
import { setApiKeyRulesInput, setApiKeyRulesOutput } from "./set-api-key-rules.schema";

export const setApiKeyRulesProcedure = protectedProcedure("keys:write")
  .meta({
    openapi: {
      method: "PUT",
      path: "/api-keys/{id}/rules",
      tags: ["api-keys"],
      summary: "Replace an API key's topic and group rules",
    },
  })
  .input(setApiKeyRulesInput)
  .output(setApiKeyRulesOutput)
  .mutation(async ({ ctx, input }) => ({
    id: input.id,
    rules: await replaceApiKeyRules(ctx.deps, ctx.identity, input.id, input.rules),
  }));
