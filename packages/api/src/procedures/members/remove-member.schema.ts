import { z } from "zod";
import { idSchema } from "../../services/stored-text.schema";

export const removeMemberInput = z.object({ memberId: idSchema });

export const removeMemberOutput = z.object({
  id: z.string(),
  removed: z.literal(true),
  revokedKeys: z
    .array(z.string())
    .meta({ description: "Ids of the API keys the member made, revoked with them" }),
});
