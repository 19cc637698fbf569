import { z } from "zod";
import { apiKeySummarySchema } from "./api-key.schema";

export const listApiKeysInput = z
  .object({
    limit: z.number().int().min(1).max(500).default(100),
    cursor: z.string().max(400).optional().meta({ description: "nextCursor of the previous page" }),
  })
  .default({ limit: 100 });

export const listApiKeysOutput = z.object({
  apiKeys: z.array(apiKeySummarySchema),
  nextCursor: z.string().nullable(),
});
