import { readRecordsInput, readRecordsOutput } from "../../services/read-records.schema";
import { readRecords } from "../../services/record.service";
import { protectedProcedure } from "../../trpc/access";

export const readRecordsProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/partitions/{partition}/records",
      tags: ["records"],
      summary: "Read records of one partition from an offset",
    },
  })
  .input(readRecordsInput)
  .output(readRecordsOutput)
  .query(({ ctx, input }) => readRecords(ctx.deps, ctx.identity, input));
