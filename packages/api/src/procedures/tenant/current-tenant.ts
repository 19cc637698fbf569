import { expandScopes } from "../../auth/scopes";
import { authenticatedProcedure } from "../../trpc/access";
import { currentTenantInput, currentTenantOutput } from "./current-tenant.schema";

/** Who the caller is and what it may do: the console shows it, scripts check their key with it. */
export const currentTenantProcedure = authenticatedProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/tenant",
      tags: ["tenant"],
      summary: "The caller's tenant, role and scopes",
    },
  })
  .input(currentTenantInput)
  .output(currentTenantOutput)
  .query(async ({ ctx }) => {
    const { identity } = ctx;
    const org = await ctx.deps.prisma.organization.findUniqueOrThrow({ where: { id: identity.tenantId } });
    return {
      tenantId: org.id,
      name: org.name,
      slug: org.slug,
      actor: { type: identity.actor.type, id: identity.actor.id },
      role: identity.role,
      scopes: expandScopes(identity.scopes),
    };
  });
