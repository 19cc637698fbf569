import { z } from "zod";

export const removeMemberInput = z.object({ memberId: z.string().min(1).max(128) });

export const removeMemberOutput = z.object({ id: z.string(), removed: z.literal(true) });
