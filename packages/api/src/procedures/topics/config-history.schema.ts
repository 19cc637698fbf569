import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";

export const configHistoryInput = z.object({
  topic: topicNameSchema,
  limit: z.number().int().min(1).max(200).default(50),
});

export const configHistoryOutput = z.object({
  entries: z.array(
    z.object({
      seq: z.number().int().meta({ description: "The event's place in the tenant's audit chain" }),
      at: z.string(),
      action: z.enum(["created", "altered"]),
      actor: z.object({
        type: z.string().meta({ description: "user | apiKey | system" }),
        id: z.string().nullable(),
        name: z.string().nullable().meta({
          description:
            "A member's name and e-mail, a key's name and its creator, or the system's id (audit-actors.ts)",
        }),
      }),
      changes: z.array(
        z.object({
          name: z.string(),
          before: z.string().nullable().meta({ description: "Null: the default applied" }),
          after: z.string().nullable().meta({ description: "Null: back to the default" }),
        }),
      ),
    }),
  ),
});
