import { z } from "zod";
import { idSchema } from "../../services/stored-text.schema";
import { assignableRoleSchema } from "./member.schema";

export const changeMemberRoleInput = z.object({
  memberId: idSchema,
  role: assignableRoleSchema,
});

export const changeMemberRoleOutput = z.object({ id: z.string(), role: assignableRoleSchema });
