import { topicSubjects } from "../../schema-registry/console-schemas.service";
import { protectedProcedure } from "../../trpc/access";
import { topicSubjectsInput } from "./schemas.schema";

export const topicSubjectsProcedure = protectedProcedure("schemas:read")
  .input(topicSubjectsInput)
  .query(({ ctx, input }) => topicSubjects(ctx.deps, ctx.identity, input.topic));
