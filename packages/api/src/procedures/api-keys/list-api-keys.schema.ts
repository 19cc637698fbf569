import { z } from "zod";
import { apiKeySummarySchema } from "./api-key.schema";

export const listApiKeysInput = z.object({}).optional();

export const listApiKeysOutput = z.object({ apiKeys: z.array(apiKeySummarySchema) });
