import { z } from "zod";
import { assignableRoleSchema } from "./member.schema";

export const inviteMemberInput = z.object({ email: z.email().max(254), role: assignableRoleSchema });

export const inviteMemberOutput = z.object({
  id: z.string().meta({
    description: "Invitation id; the invitee accepts it at /api/auth/organization/accept-invitation",
  }),
  email: z.string(),
  role: assignableRoleSchema,
  expiresAt: z.string(),
});
