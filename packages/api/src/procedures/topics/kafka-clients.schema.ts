import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";

export const kafkaClientsInput = z.object({ topic: topicNameSchema });

export const kafkaClientsOutput = z.object({
  clients: z.array(
    z.object({
      role: z.enum(["producer", "consumer"]),
      clientId: z.string().meta({ description: "The client id of the client's request headers" }),
      softwareName: z.string().meta({
        description: "From ApiVersions v3 (e.g. apache-kafka-java); empty when the client did not say",
      }),
      softwareVersion: z.string(),
      lastSeenAt: z.string(),
    }),
  ),
});
