import { z } from "zod";
import { assignableRoleSchema } from "./member.schema";

export const changeMemberRoleInput = z.object({
  memberId: z.string().min(1).max(128),
  role: assignableRoleSchema,
});

export const changeMemberRoleOutput = z.object({ id: z.string(), role: assignableRoleSchema });
