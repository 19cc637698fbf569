import { listSubjects } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";

export const listSubjectsProcedure = protectedProcedure("schemas:read").query(({ ctx }) =>
  listSubjects(ctx.deps, ctx.identity),
);
