import { z } from "zod";
import { TRANSACTION_STATES } from "./transaction-states";

// Kafka transactions of the tenant (issue 32), as the KafkaTransaction rows the workers' transaction
// coordinators keep.

const transactionSchema = z.object({
  transactionalId: z.string(),
  state: z.enum(TRANSACTION_STATES),
  producerId: z.number().int().meta({ description: "-1 before the first InitProducerId" }),
  producerEpoch: z.number().int(),
  timeoutMs: z.number().int().meta({ description: "The producer's transaction.timeout.ms" }),
  startedAt: z.iso
    .datetime()
    .nullable()
    .meta({ description: "When the open transaction began (null: none open)" }),
  updatedAt: z.iso.datetime().meta({ description: "The last change of state" }),
  partitions: z.array(z.object({ topic: z.string(), partition: z.number().int() })),
  coordinator: z
    .string()
    .nullable()
    .meta({ description: "The worker coordinating it under a live lease, if any" }),
  abortRequestedAt: z.iso
    .datetime()
    .nullable()
    .meta({ description: "An operator's abort, not yet carried out" }),
});

export const listTransactionsInput = z.object({}).optional();
export const listTransactionsOutput = z.object({ transactions: z.array(transactionSchema) });

export const abortTransactionInput = z.object({ transactionalId: z.string().min(1).max(249) });
export const abortTransactionOutput = z.object({
  transactionalId: z.string(),
  abortRequested: z.literal(true),
});
