import { z } from "zod";
import { KAFKA_SASL_MECHANISMS } from "../../services/kafka-connection.service";

export const kafkaConnectionInput = z.object({}).optional();

export const kafkaConnectionOutput = z.object({
  bootstrapServers: z.array(z.string()).meta({ description: "host:port of every live broker" }),
  securityProtocol: z.literal("SASL_PLAINTEXT"),
  mechanisms: z.array(z.enum(KAFKA_SASL_MECHANISMS)),
});
