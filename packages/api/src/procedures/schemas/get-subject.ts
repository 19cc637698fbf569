import { getSubject } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { subjectInput } from "./schemas.schema";

export const getSubjectProcedure = protectedProcedure("schemas:read")
  .input(subjectInput)
  .query(({ ctx, input }) => getSubject(ctx.deps, ctx.identity, input.subject));
