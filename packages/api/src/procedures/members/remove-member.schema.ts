import { z } from "zod";

export const removeMemberInput = z.object({ memberId: z.string().min(1).max(128) });

export const removeMemberOutput = z.object({
  id: z.string(),
  removed: z.literal(true),
  revokedKeys: z
    .array(z.string())
    .meta({ description: "Ids of the API keys the member made, revoked with them" }),
});
