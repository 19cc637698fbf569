import { listTransactionsInput, listTransactionsOutput } from "../../services/transactions.schema";
import { listTransactions } from "../../services/transactions.service";
import { protectedProcedure } from "../../trpc/access";

export const listTransactionsProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/transactions",
      tags: ["transactions"],
      summary:
        "Every Kafka transactional id of the tenant: state, producer, timeout, partitions, last update",
    },
  })
  .input(listTransactionsInput)
  .output(listTransactionsOutput)
  .query(({ ctx }) => listTransactions(ctx.deps, ctx.identity));
