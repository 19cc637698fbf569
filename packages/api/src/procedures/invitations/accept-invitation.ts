import { acceptInvitation } from "../../services/invitation.service";
import { sessionProcedure } from "../../trpc/access";
import { acceptInvitationOutput, answerInvitationInput } from "./answer-invitation.schema";

export const acceptInvitationProcedure = sessionProcedure
  .input(answerInvitationInput)
  .output(acceptInvitationOutput)
  .mutation(({ ctx, input }) => acceptInvitation(ctx.deps, ctx.user, input));
