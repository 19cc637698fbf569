import { declineInvitation } from "../../services/invitation.service";
import { sessionProcedure } from "../../trpc/access";
import { answerInvitationInput, declineInvitationOutput } from "./answer-invitation.schema";

export const declineInvitationProcedure = sessionProcedure
  .input(answerInvitationInput)
  .output(declineInvitationOutput)
  .mutation(({ ctx, input }) => declineInvitation(ctx.deps, ctx.user, input));
