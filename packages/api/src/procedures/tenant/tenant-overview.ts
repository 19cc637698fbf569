import { tenantOverview } from "../../services/tenant-overview.service";
import { protectedProcedure } from "../../trpc/access";
import { tenantOverviewInput, tenantOverviewOutput } from "./tenant-overview.schema";

export const tenantOverviewProcedure = protectedProcedure("topics:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/tenant/overview",
      tags: ["tenant"],
      summary: "Object storage, recent Kafka clients and the dirtiest topics",
    },
  })
  .input(tenantOverviewInput)
  .output(tenantOverviewOutput)
  .query(({ ctx }) => tenantOverview(ctx.deps, ctx.identity));
