import { z } from "zod";
import { committedOffsetSchema, groupNameSchema } from "./consumer-group.schema";

export const getGroupInput = z.object({ group: groupNameSchema });

export const getGroupOutput = z.object({
  group: z.string(),
  offsets: z.array(
    z.object({
      topic: z.string(),
      partition: z.number().int(),
      offset: committedOffsetSchema,
      metadata: z.string().nullable(),
      committedAt: z.string(),
      logEndOffset: z.number().int().nullable(),
      lag: z.number().int().nullable(),
    }),
  ),
});
