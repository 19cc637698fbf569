import { changeMemberRole } from "../../services/member.service";
import { protectedProcedure } from "../../trpc/access";
import { changeMemberRoleInput, changeMemberRoleOutput } from "./change-member-role.schema";

export const changeMemberRoleProcedure = protectedProcedure("members:write")
  .input(changeMemberRoleInput)
  .output(changeMemberRoleOutput)
  .mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.identity, input));
