import { z } from "zod";
import { storedText } from "../../services/stored-text.schema";
import { topicNameSchema } from "../../services/topic.schema";
import { groupNameSchema } from "./consumer-group.schema";

export const commitOffsetsInput = z.object({
  group: groupNameSchema,
  offsets: z
    .array(
      z.object({
        topic: topicNameSchema,
        partition: z.number().int().min(0),
        offset: z.number().int().min(0).meta({ description: "The next offset to read" }),
        metadata: storedText(1024).optional(),
      }),
    )
    .min(1)
    .max(10_000)
    .meta({
      example: [
        { topic: "user-profiles", partition: 0, offset: 42 },
        { topic: "user-profiles", partition: 1, offset: 17 },
      ],
    }),
});

export const commitOffsetsOutput = z
  .object({ group: z.string(), committed: z.number().int() })
  .meta({ example: { group: "billing-service", committed: 2 } });
