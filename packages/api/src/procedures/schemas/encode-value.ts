import { encodeWithSchema } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { encodeValueInput } from "./schemas.schema";

// Encoding reads the schema; what is produced with the bytes needs records:write on its own.
export const encodeValueProcedure = protectedProcedure("schemas:read")
  .input(encodeValueInput)
  .mutation(({ ctx, input }) => encodeWithSchema(ctx.deps, ctx.identity, input));
