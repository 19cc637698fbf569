-- AlterTable
ALTER TABLE "ErasureRequest" ADD COLUMN     "closedAt" TIMESTAMP(3),
ADD COLUMN     "extensions" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "notes" TEXT,
ADD COLUMN     "preflight" JSONB,
ADD COLUMN     "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "statusReason" TEXT,
ADD COLUMN     "subjectKeys" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "ErasureTombstone" (
    "id" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "topicId" TEXT NOT NULL,
    "partitionId" TEXT NOT NULL,
    "partitionIndex" INTEGER NOT NULL,
    "subjectKey" TEXT NOT NULL,
    "offset" BIGINT NOT NULL,
    "writtenAt" TIMESTAMP(3) NOT NULL,
    "deadlineAt" TIMESTAMP(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'tombstoned',
    "passRequestedAt" TIMESTAMP(3),
    "purgedAt" TIMESTAMP(3),
    "purgeEvidence" JSONB,
    "expiredAt" TIMESTAMP(3),
    "expiryEvidence" JSONB,

    CONSTRAINT "ErasureTombstone_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ErasureTombstone_partitionId_status_idx" ON "ErasureTombstone"("partitionId", "status");

-- CreateIndex
CREATE INDEX "ErasureTombstone_requestId_idx" ON "ErasureTombstone"("requestId");

-- AddForeignKey
ALTER TABLE "ErasureTombstone" ADD CONSTRAINT "ErasureTombstone_requestId_fkey" FOREIGN KEY ("requestId") REFERENCES "ErasureRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

