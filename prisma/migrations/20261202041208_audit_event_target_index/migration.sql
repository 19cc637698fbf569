-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_targetType_targetId_seq_idx" ON "AuditEvent"("organizationId", "targetType", "targetId", "seq");

