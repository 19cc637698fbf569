import { getKey } from "../../services/key-lookup.service";
import { protectedProcedure } from "../../trpc/access";
import { getKeyOutput, keyLookupInput } from "./key-lookup.schema";

export const getKeyProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/keys/{key}",
      tags: ["records"],
      summary: "A key's latest value (404 when absent or tombstoned), from the key index",
    },
  })
  .input(keyLookupInput)
  .output(getKeyOutput)
  .query(({ ctx, input }) => getKey(ctx.deps, ctx.identity, input));
