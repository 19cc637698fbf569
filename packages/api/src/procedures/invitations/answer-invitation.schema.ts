import { z } from "zod";
import { idSchema } from "../../services/stored-text.schema";

/** Accepting and declining name the invitation and, from the link, its token. */
export const answerInvitationInput = z.object({
  invitationId: idSchema,
  token: z.string().min(1).max(128).optional().meta({
    description: "The token of the invitation link; without it, the account's e-mail must be verified",
  }),
});

export const acceptInvitationOutput = z.object({
  memberId: z.string(),
  organizationId: z.string(),
  role: z.string(),
});

export const declineInvitationOutput = z.object({ invitationId: z.string(), declined: z.literal(true) });
