import { z } from "zod";
import { assignableRoleSchema } from "./member.schema";

export const inviteMemberInput = z.object({ email: z.email().max(254), role: assignableRoleSchema });

export const inviteMemberOutput = z.object({
  id: z.string(),
  email: z.string(),
  role: assignableRoleSchema,
  expiresAt: z.string(),
  link: z.string().meta({
    description:
      "Where the invitee accepts: carries the invitation's secret token, shown only in this response. Pass it on to them.",
  }),
});
