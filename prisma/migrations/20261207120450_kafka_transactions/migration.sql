-- AlterTable
ALTER TABLE "Quota" ADD COLUMN     "maxTransactionTimeoutMs" INTEGER NOT NULL DEFAULT 900000;

-- CreateTable
CREATE TABLE "KafkaTransaction" (
    "organizationId" TEXT NOT NULL,
    "transactionalId" TEXT NOT NULL,
    "ownerWorkerId" TEXT,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiresAt" TIMESTAMP(3),
    "producerId" BIGINT NOT NULL DEFAULT -1,
    "producerEpoch" INTEGER NOT NULL DEFAULT -1,
    "state" TEXT NOT NULL DEFAULT 'Empty',
    "timeoutMs" INTEGER NOT NULL DEFAULT 60000,
    "partitions" JSONB NOT NULL DEFAULT '[]',
    "pendingOffsets" JSONB NOT NULL DEFAULT '[]',
    "startedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "abortRequestedAt" TIMESTAMP(3),

    CONSTRAINT "KafkaTransaction_pkey" PRIMARY KEY ("organizationId","transactionalId")
);

-- CreateIndex
CREATE INDEX "KafkaTransaction_ownerWorkerId_idx" ON "KafkaTransaction"("ownerWorkerId");

-- AddForeignKey
ALTER TABLE "KafkaTransaction" ADD CONSTRAINT "KafkaTransaction_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
