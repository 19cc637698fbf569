import { getKeyVersions } from "../../services/key-lookup.service";
import { protectedProcedure } from "../../trpc/access";
import { keyLookupInput, keyVersionsOutput } from "./key-lookup.schema";

export const keyVersionsProcedure = protectedProcedure("records:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/topics/{topic}/keys/{key}/versions",
      tags: ["records"],
      summary:
        "Every retained version of a key with its offset and segment (access requests, erasure evidence)",
    },
  })
  .input(keyLookupInput)
  .output(keyVersionsOutput)
  .query(({ ctx, input }) => getKeyVersions(ctx.deps, ctx.identity, input));
