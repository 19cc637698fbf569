import { z } from "zod";

export const listMembersInput = z.object({}).optional();

export const listMembersOutput = z.object({
  members: z.array(
    z.object({
      id: z.string(),
      userId: z.string(),
      email: z.string(),
      name: z.string(),
      role: z.string(),
      createdAt: z.string(),
    }),
  ),
  invitations: z.array(
    z.object({
      id: z.string().nullable().meta({ description: "Null unless the caller holds members:write" }),
      email: z.string(),
      role: z.string(),
      expiresAt: z.string(),
    }),
  ),
});
