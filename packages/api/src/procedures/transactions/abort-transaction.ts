import { abortTransactionInput, abortTransactionOutput } from "../../services/transactions.schema";
import { abortTransaction } from "../../services/transactions.service";
import { protectedProcedure } from "../../trpc/access";

export const abortTransactionProcedure = protectedProcedure("records:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/transactions/{transactionalId}/abort",
      tags: ["transactions"],
      summary:
        "Abort a hung Kafka transaction (audited): its coordinator aborts it at its next tick and fences the producer",
    },
  })
  .input(abortTransactionInput)
  .output(abortTransactionOutput)
  .mutation(({ ctx, input }) => abortTransaction(ctx.deps, ctx.identity, input.transactionalId));
