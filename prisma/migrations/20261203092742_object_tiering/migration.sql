-- AlterTable
ALTER TABLE "Partition" ADD COLUMN     "durableStartOffset" BIGINT;

-- AlterTable
ALTER TABLE "PartitionObject" ADD COLUMN     "startsSegment" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "stats" JSONB;

-- CreateTable
CREATE TABLE "SupersededObject" (
    "id" BIGSERIAL NOT NULL,
    "objectKey" TEXT NOT NULL,
    "partitionId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "baseOffset" BIGINT NOT NULL,
    "lastOffset" BIGINT NOT NULL,
    "supersededAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "SupersededObject_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SupersededObject_deletedAt_supersededAt_idx" ON "SupersededObject"("deletedAt", "supersededAt");

-- CreateIndex
CREATE INDEX "SupersededObject_partitionId_idx" ON "SupersededObject"("partitionId");

-- CreateIndex
CREATE INDEX "SupersededObject_objectKey_idx" ON "SupersededObject"("objectKey");


-- CreateTable
CREATE TABLE "PartitionCache" (
    "partitionId" TEXT NOT NULL,
    "workerId" TEXT NOT NULL,
    "openedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PartitionCache_pkey" PRIMARY KEY ("partitionId","workerId")
);

-- AddForeignKey
ALTER TABLE "PartitionCache" ADD CONSTRAINT "PartitionCache_partitionId_fkey" FOREIGN KEY ("partitionId") REFERENCES "Partition"("id") ON DELETE CASCADE ON UPDATE CASCADE;
