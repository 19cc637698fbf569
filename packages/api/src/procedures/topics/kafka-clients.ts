import { listKafkaClients } from "../../services/kafka-clients.service";
import { protectedProcedure } from "../../trpc/access";
import { kafkaClientsInput, kafkaClientsOutput } from "./kafka-clients.schema";

export const kafkaClientsProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/kafka-clients",
      tags: ["topics"],
      summary: "Kafka clients that produced to or consumed from the topic in the last day",
    },
  })
  .input(kafkaClientsInput)
  .output(kafkaClientsOutput)
  .query(({ ctx, input }) => listKafkaClients(ctx.deps, ctx.identity, input));
