import { searchRecords } from "../../services/record-search.service";
import { searchRecordsInput, searchRecordsOutput } from "../../services/search-records.schema";
import { protectedProcedure } from "../../trpc/access";

// A read (records:read), as a query over tRPC; REST clients read partitions and filter themselves.
export const searchRecordsProcedure = protectedProcedure("records:read")
  .input(searchRecordsInput)
  .output(searchRecordsOutput)
  .query(({ ctx, input }) => searchRecords(ctx.deps, ctx.identity, input));
