import { z } from "zod";

export const revokeApiKeyInput = z.object({ id: z.string().min(1).max(128) });

export const revokeApiKeyOutput = z.object({ id: z.string(), revoked: z.literal(true) });
