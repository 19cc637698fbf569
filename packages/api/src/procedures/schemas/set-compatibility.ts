import { setCompatibility } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { setCompatibilityInput } from "./schemas.schema";

export const setCompatibilityProcedure = protectedProcedure("schemas:write")
  .input(setCompatibilityInput)
  .mutation(({ ctx, input }) => setCompatibility(ctx.deps, ctx.identity, input));
