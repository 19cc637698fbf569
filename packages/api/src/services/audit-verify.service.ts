import type { PrismaClient } from "@lastword/db";
import { verifyAuditChain } from "@lastword/db";

/** Re-walks the tenant's hash chain and names the first event whose link does not hold. */
export async function verifyTenantAudit(prisma: PrismaClient, tenantId: string) {
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
      targetId: broken.targetId,
    },
  };
}
