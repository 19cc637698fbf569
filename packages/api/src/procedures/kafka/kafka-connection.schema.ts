import { z } from "zod";
import { KAFKA_SASL_MECHANISMS } from "../../services/kafka-connection.service";
import { topicNameSchema } from "../../services/topic.schema";

export const kafkaConnectionInput = z
  .object({
    topic: topicNameSchema.optional().meta({
      description: "A topic of the tenant: the answer then names its `<topic>.latest` view, if it has one",
    }),
  })
  .optional();

export const kafkaConnectionOutput = z.object({
  bootstrapServers: z.array(z.string()).meta({ description: "host:port of every live broker" }),
  securityProtocol: z.literal("SASL_PLAINTEXT"),
  mechanisms: z.array(z.enum(KAFKA_SASL_MECHANISMS)),
  latestView: z.string().nullable().meta({
    description:
      "The compacted topic's read-only Kafka view: from the beginning, each key's latest record (tombstones included), then every new write; null without a topic, or when the topic is not compacted",
    example: "user-profiles.latest",
  }),
});
