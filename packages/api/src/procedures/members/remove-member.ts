import { removeMember } from "../../services/member.service";
import { protectedProcedure } from "../../trpc/access";
import { removeMemberInput, removeMemberOutput } from "./remove-member.schema";

export const removeMemberProcedure = protectedProcedure("members:write")
  .input(removeMemberInput)
  .output(removeMemberOutput)
  .mutation(({ ctx, input }) => removeMember(ctx.deps, ctx.identity, input.memberId));
