import { searchRecords } from "../../services/record-search.service";
import { protectedProcedure } from "../../trpc/access";
import { searchRecordsInput, searchRecordsOutput } from "./search-records.schema";

// A read (records:read), as a query over tRPC; REST clients read partitions and filter themselves.
export const searchRecordsProcedure = protectedProcedure("records:read")
  .input(searchRecordsInput)
  .output(searchRecordsOutput)
  .query(({ ctx, input }) => searchRecords(ctx.deps, ctx.identity, input));
