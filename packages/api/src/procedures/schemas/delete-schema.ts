import { deleteSchema } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { deleteSchemaInput } from "./schemas.schema";

export const deleteSchemaProcedure = protectedProcedure("schemas:write")
  .input(deleteSchemaInput)
  .mutation(({ ctx, input }) => deleteSchema(ctx.deps, ctx.identity, input));
