import type { PrismaClient } from "@lastword/db";
import { verifyAuditChain } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { auditRowVisibility } from "./audit-visibility";

/**
 * Re-walks the tenant's hash chain and names the first event whose link does not hold (an
 * invitation's id only to those who manage members, audit-visibility.ts).
 */
export async function verifyTenantAudit(prisma: PrismaClient, identity: Identity) {
  const tenantId = identity.tenantId;
  const [firstBrokenSeq, events] = await Promise.all([
    verifyAuditChain(prisma, tenantId),
    prisma.auditEvent.count({ where: { organizationId: tenantId } }),
  ]);
  const broken =
    firstBrokenSeq === null
      ? null
      : await prisma.auditEvent.findUnique({
          where: { organizationId_seq: { organizationId: tenantId, seq: firstBrokenSeq } },
        });
  return {
    ok: firstBrokenSeq === null,
    events,
    firstBrokenSeq,
    firstBroken: broken && {
      seq: broken.seq,
      action: broken.action,
      createdAt: broken.createdAt.toISOString(),
      targetType: broken.targetType,
      targetId: auditRowVisibility(identity)(broken).targetId,
    },
  };
}
