import { kafkaConnection } from "../../services/kafka-connection.service";
import { protectedProcedure } from "../../trpc/access";
import { kafkaConnectionInput, kafkaConnectionOutput } from "./kafka-connection.schema";

/** The brokers and SASL mechanisms a Kafka client needs (the same for every tenant, but behind auth), and a topic's view. */
export const kafkaConnectionProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/kafka/connection",
      tags: ["kafka"],
      summary:
        "Bootstrap servers and SASL mechanisms for Kafka clients, and a compacted topic's latest-value view",
    },
  })
  .input(kafkaConnectionInput)
  .output(kafkaConnectionOutput)
  .query(({ ctx, input }) => kafkaConnection(ctx.deps, ctx.identity, input));
