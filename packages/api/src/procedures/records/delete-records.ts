import { deleteRecordsInput, deleteRecordsOutput } from "../../services/delete-records.schema";
import { deleteRecordsBefore } from "../../services/delete-records.service";
import { protectedProcedure } from "../../trpc/access";

export const deleteRecordsProcedure = protectedProcedure("records:write")
  .meta({
    openapi: {
      method: "POST",
      path: "/topics/{topic}/partitions/{partition}/delete-records",
      tags: ["records"],
      summary: "Delete every record below an offset (Kafka's deleteRecords; not on compact-only topics)",
    },
  })
  .input(deleteRecordsInput)
  .output(deleteRecordsOutput)
  .mutation(({ ctx, input }) => deleteRecordsBefore(ctx.deps, ctx.identity, input));
