import { z } from "zod";
import { idSchema } from "../../services/stored-text.schema";

export const revokeApiKeyInput = z.object({ id: idSchema });

export const revokeApiKeyOutput = z.object({ id: z.string(), revoked: z.literal(true) });
