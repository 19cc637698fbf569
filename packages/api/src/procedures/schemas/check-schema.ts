import { checkSchema } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { schemaDraftInput } from "./schemas.schema";

// A read: it checks, it writes nothing (Confluent's POST /compatibility is a read too).
export const checkSchemaProcedure = protectedProcedure("schemas:read")
  .input(schemaDraftInput)
  .mutation(({ ctx, input }) => checkSchema(ctx.deps, ctx.identity, input));
