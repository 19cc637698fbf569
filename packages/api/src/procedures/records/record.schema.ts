import { z } from "zod";
import { envelopeSchema } from "../../records/envelope";

export const headerSchema = z.object({ key: z.string().max(256), value: envelopeSchema.nullable() });

export const problemItemSchema = z.object({
  code: z.string(),
  status: z.number().int(),
  detail: z.string(),
});
