-- CreateTable
CREATE TABLE "KafkaGroup" (
    "organizationId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "ownerWorkerId" TEXT,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "leaseExpiresAt" TIMESTAMP(3),

    CONSTRAINT "KafkaGroup_pkey" PRIMARY KEY ("organizationId","groupId")
);

-- CreateIndex
CREATE INDEX "KafkaGroup_ownerWorkerId_idx" ON "KafkaGroup"("ownerWorkerId");

-- AddForeignKey
ALTER TABLE "KafkaGroup" ADD CONSTRAINT "KafkaGroup_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

