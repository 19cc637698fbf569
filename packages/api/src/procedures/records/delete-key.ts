import { AppError } from "../../errors/app-error";
import { produceRecords } from "../../services/record.service";
import { protectedProcedure } from "../../trpc/access";
import { deleteKeyInput, deleteKeyOutput } from "./delete-key.schema";

export const deleteKeyProcedure = protectedProcedure("records:write")
  .meta({
    openapi: {
      method: "DELETE",
      path: "/topics/{topic}/keys/{key}",
      tags: ["records"],
      summary: "Delete a key: write its tombstone",
    },
  })
  .input(deleteKeyInput)
  .output(deleteKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const { results } = await produceRecords(ctx.deps, ctx.identity, {
      topic: input.topic,
      records: [{ key: { type: input.keyType, data: input.key }, value: null }],
    });
    const result = results[0];
    if (!result || result.offset === undefined)
      throw new AppError("INTERNAL", "The tombstone was not written.");
    return { partition: result.partition, offset: result.offset };
  });
