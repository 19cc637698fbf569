import { inviteMember } from "../../services/invitation.service";
import { protectedProcedure } from "../../trpc/access";
import { inviteMemberInput, inviteMemberOutput } from "./invite-member.schema";

export const inviteMemberProcedure = protectedProcedure("members:write")
  .input(inviteMemberInput)
  .output(inviteMemberOutput)
  .mutation(({ ctx, input }) => inviteMember(ctx.deps, ctx.identity, input));
