import { z } from "zod";
import { once } from "../../services/idempotency.service";
import { produceRecordsInput, produceRecordsOutput } from "../../services/produce-records.schema";
import { everyRecordWritten, produceRecords } from "../../services/record.service";
import { protectedProcedure } from "../../trpc/access";

export const produceRecordsProcedure = protectedProcedure("records:write", { countsRequestInAdmission: true })
  .meta({
    openapi: {
      method: "POST",
      path: "/topics/{topic}/records",
      tags: ["records"],
      summary: "Produce a batch of records; answers per record (207 when only some were written)",
      requestHeaders: z.object({
        "idempotency-key": z
          .string()
          .optional()
          .meta({ description: "Retries with the same key get the first answer" }),
      }),
    },
    successStatuses: [200, 207],
    successStatus: (data) =>
      (data as { results: { error?: unknown }[] }).results.some((r) => r.error) ? 207 : 200,
  })
  .input(produceRecordsInput)
  .output(produceRecordsOutput)
  .mutation(({ ctx, input }) => {
    const key = ctx.headers.get("idempotency-key");
    return once(
      ctx.deps,
      { tenantId: ctx.identity.tenantId, scope: "produce", key, request: input },
      () => produceRecords(ctx.deps, ctx.identity, input, key),
      everyRecordWritten,
    );
  });
