import { registerSchema } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { schemaDraftInput } from "./schemas.schema";

export const registerSchemaProcedure = protectedProcedure("schemas:write")
  .input(schemaDraftInput)
  .mutation(({ ctx, input }) => registerSchema(ctx.deps, ctx.identity, input));
