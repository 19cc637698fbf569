import { revokeInvitation } from "../../services/invitation.service";
import { protectedProcedure } from "../../trpc/access";
import { revokeInvitationInput, revokeInvitationOutput } from "./revoke-invitation.schema";

export const revokeInvitationProcedure = protectedProcedure("members:write")
  .input(revokeInvitationInput)
  .output(revokeInvitationOutput)
  .mutation(({ ctx, input }) => revokeInvitation(ctx.deps, ctx.identity, input.invitationId));
