import { z } from "zod";

export { topicPathSchema as deleteTopicInput } from "../../services/topic.schema";

export const deleteTopicOutput = z.object({ name: z.string(), deleted: z.literal(true) });
