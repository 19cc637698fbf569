import { z } from "zod";

export { topicPathSchema as deleteTopicInput } from "./topic.schema";

export const deleteTopicOutput = z.object({ name: z.string(), deleted: z.literal(true) });
