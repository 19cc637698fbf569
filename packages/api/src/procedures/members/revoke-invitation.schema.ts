import { z } from "zod";
import { idSchema } from "../../services/stored-text.schema";

export const revokeInvitationInput = z.object({ invitationId: idSchema });

export const revokeInvitationOutput = z.object({
  id: z.string(),
  email: z.string(),
  revoked: z.literal(true),
});
