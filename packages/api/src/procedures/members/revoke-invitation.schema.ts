import { z } from "zod";

export const revokeInvitationInput = z.object({ invitationId: z.string().min(1).max(128) });

export const revokeInvitationOutput = z.object({
  id: z.string(),
  email: z.string(),
  revoked: z.literal(true),
});
